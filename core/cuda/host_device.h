#pragma once
// TG_HOST_DEVICE marks a small inline function that both an op's CPU kernel and its CUDA
// kernel call (an element formula written once). Without nvcc it is plain inline C++. Inside,
// use std:: math (std::exp, std::erf, ...): nvcc maps it to the device functions.
#ifdef __CUDACC__
#define TG_HOST_DEVICE __host__ __device__
#else
#define TG_HOST_DEVICE
#endif
