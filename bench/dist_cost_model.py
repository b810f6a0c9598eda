#!/usr/bin/env python3
"""The ring-allreduce cost model of data-parallel training (docs/distributed.md).

Each update, N nodes average G bytes of gradients with a ring allreduce, which sends
2 (N-1)/N x G bytes over each node's link in 2 (N-1) steps:
T_comm = 2 (N-1) x latency + 2 (N-1)/N x G / bandwidth. The buckets go
out during backward, so at best the reduction hides behind it: an update takes
T_fwd + max(T_bwd, T_comm) instead of T_fwd + T_bwd (the optimizer step and the last bucket's
reduction are left out). Weak scaling: every node keeps its own batch, so the efficiency is
(T_fwd + T_bwd) / (T_fwd + max(T_bwd, T_comm)); without overlap it would be
(T_fwd + T_bwd) / (T_fwd + T_bwd + T_comm).

    bench/dist_cost_model.py
"""

# Parameters of bench/train_step_common.h's configs (vocab 64; tapegrad's TransformerModel:
# embedding, per layer q/k/v/out projections with biases, feed-forward, two LayerNorms, a final
# LayerNorm and the output Linear), and the 1-thread step times of docs/benchmarks.md.
def parameters(vocab, d, ff, layers):
    per_layer = 4 * (d * d + d) + (d * ff + ff) + (ff * d + d) + 2 * 2 * d
    return vocab * d + layers * per_layer + 2 * d + d * vocab + vocab

CONFIGS = [  # name, parameters, ms per update on one core
    ("default", 102_031, 12.0),  # tapegrad train's model (it prints the count); its done: line with --threads 1
    ("toy", parameters(64, 128, 512, 2), 52.5),
    ("larger", parameters(64, 256, 1024, 4), 373.1),
]
LATENCY_MS = 0.02  # per ring step: a TCP round on a 10-100 Gbit/s Ethernet, roughly
BACKWARD_SHARE = 2 / 3  # backward does two matrix products per forward one
NODES = [2, 8, 64]
LINKS_GBIT = [10, 100]

print("| config | parameters | gradient MB (f32) | link | " + " | ".join(f"{n} nodes" for n in NODES) + " |")
print("|---|---:|---:|---|" + "---:|" * len(NODES))
for name, params, step_ms in CONFIGS:
    grad_bytes = 4 * params
    fwd, bwd = step_ms * (1 - BACKWARD_SHARE), step_ms * BACKWARD_SHARE
    for gbit in LINKS_GBIT:
        cells = []
        for n in NODES:
            comm_ms = 2 * (n - 1) * LATENCY_MS + 2 * (n - 1) / n * grad_bytes / (gbit * 1e9 / 8) * 1e3
            overlapped = step_ms / (fwd + max(bwd, comm_ms))
            serial = step_ms / (step_ms + comm_ms)
            cells.append(f"{comm_ms:.1f} ms: {100 * overlapped:.0f}% ({100 * serial:.0f}%)")
        print(f"| {name} | {params:,} | {grad_bytes / 1e6:.2f} | {gbit} Gbit/s | " + " | ".join(cells) + " |")
