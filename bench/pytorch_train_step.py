#!/usr/bin/env python3
"""The PyTorch twin of bench/gpu_bench.cpp: the same model and training step in PyTorch eager.

    python3 bench/pytorch_train_step.py [--device cuda|cpu] [--steps N] [--config toy|large|all]
                                        [--no-ops] [--tapegrad FILE]

Model: token embedding + learned positions, post-LN nn.TransformerEncoderLayer (relu,
dropout 0.1, batch_first), a linear head to the vocabulary, mean cross-entropy against random
targets, AdamW (lr 1e-3, weight_decay 0.01). One step = forward + backward + AdamW step +
zero_grad. Timing: torch.cuda.synchronize() before the clock starts and before it stops; the
median of the timed steps after warm-up. Prints the same table and JSON lines as gpu_bench;
with --tapegrad FILE (gpu_bench's output) it ends with a side-by-side table.
"""
import argparse
import json
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIGS = {
    "toy": dict(vocab=64, d_model=128, heads=4, ffn=512, layers=2, seq=64, batch=32),
    "large": dict(vocab=64, d_model=256, heads=8, ffn=1024, layers=4, seq=128, batch=16),
}


class BenchModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embedding = nn.Embedding(c["vocab"], c["d_model"])
        self.positions = nn.Parameter(torch.randn(c["seq"], c["d_model"]) * 0.02)
        layer = nn.TransformerEncoderLayer(c["d_model"], c["heads"], c["ffn"], dropout=0.1, batch_first=True)
        # enable_nested_tensor off: no padding mask here, and the fast path is inference-only anyway
        self.encoder = nn.TransformerEncoder(layer, c["layers"], enable_nested_tensor=False)
        self.head = nn.Linear(c["d_model"], c["vocab"])

    def forward(self, ids):  # (B,T) -> (B,T,V)
        x = self.embedding(ids) + self.positions[: ids.shape[1]]
        return self.head(self.encoder(x))


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def median_ms(device, warmup, reps, fn):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        sync(device)
        start = time.perf_counter()
        fn()
        sync(device)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


RECORDS = []  # every measurement, for the side-by-side table


def emit(record):
    RECORDS.append(record)
    print(json.dumps(record), flush=True)


def bench_train_step(name, c, device, steps):
    torch.manual_seed(0)
    model = BenchModel(c).to(device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    ids = torch.randint(0, c["vocab"], (c["batch"], c["seq"]), device=device)
    targets = torch.randint(0, c["vocab"], (c["batch"], c["seq"]), device=device)
    losses = []

    def step():
        logits = model(ids)
        loss = F.cross_entropy(logits.reshape(-1, c["vocab"]), targets.reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.item())

    step()
    ms = median_ms(device, 2, steps, step)
    tps = c["batch"] * c["seq"] / (ms / 1e3)
    nparams = sum(p.numel() for p in model.parameters())
    print(f"train {name:<6} {ms:>10.3f} ms/step {tps:>12.0f} tokens/s   (loss {losses[0]:.4f} -> {losses[-1]:.4f}, "
          f"{nparams} parameters)")
    emit({"kind": "train", "config": name, "ms_per_step": round(ms, 4), "tokens_per_s": round(tps, 1)})


def shape_str(*dims):
    return "(" + ",".join(str(d) for d in dims) + ")"


def bench_op(name, device, op, shape, make, fn):
    inputs = make()
    grad = torch.ones_like(fn(*inputs))

    def run():
        for t in inputs:
            if t.requires_grad:
                t.grad = None
        fn(*inputs).backward(grad)

    ms = median_ms(device, 3, 21, run)
    print(f"  op {name:<6} {op:<14} {shape:<22} {ms:>9.4f} ms fwd+bwd")
    emit({"kind": "op", "config": name, "op": op, "shape": shape, "ms": round(ms, 5)})


def bench_ops(name, c, device):
    B, T, E, NH, Fd, V = c["batch"], c["seq"], c["d_model"], c["heads"], c["ffn"], c["vocab"]
    hs = E // NH

    def leaf(*shape):
        return torch.randn(*shape, device=device, requires_grad=True)

    ids = torch.randint(0, V, (B, T), device=device)
    bench_op(name, device, "matmul", shape_str(B * T, E) + "@" + shape_str(E, Fd), lambda: [leaf(B * T, E), leaf(E, Fd)],
             torch.matmul)
    bench_op(name, device, "softmax", shape_str(B, NH, T, T), lambda: [leaf(B, NH, T, T)], lambda x: x.softmax(-1))
    # the math a composed attention does (scores, softmax, weighted sum), not a fused kernel
    bench_op(name, device, "attention", shape_str(B, NH, T, hs), lambda: [leaf(B, NH, T, hs) for _ in range(3)],
             lambda q, k, v: (q @ k.transpose(-2, -1) / hs**0.5).softmax(-1) @ v)
    bench_op(name, device, "layer_norm", shape_str(B, T, E), lambda: [leaf(B, T, E), leaf(E), leaf(E)],
             lambda x, w, b: F.layer_norm(x, (E,), w, b))
    bench_op(name, device, "relu", shape_str(B, T, Fd), lambda: [leaf(B, T, Fd)], F.relu)
    bench_op(name, device, "gelu", shape_str(B, T, Fd), lambda: [leaf(B, T, Fd)], F.gelu)
    bench_op(name, device, "dropout", shape_str(B, T, Fd), lambda: [leaf(B, T, Fd)], lambda x: F.dropout(x, 0.1, True))
    bench_op(name, device, "add", shape_str(B, T, E), lambda: [leaf(B, T, E), leaf(B, T, E)], torch.add)
    bench_op(name, device, "embedding", shape_str(B, T) + "x" + shape_str(V, E), lambda: [leaf(V, E)],
             lambda w: F.embedding(ids, w))
    bench_op(name, device, "cross_entropy", shape_str(B, T, V), lambda: [leaf(B, T, V)],
             lambda x: F.cross_entropy(x.reshape(-1, V), ids.reshape(-1)))


def read_records(path):
    records = []
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return records


def key(r):
    return (r["kind"], r["config"], r.get("op", ""))


def side_by_side(ours, theirs):
    mine = {key(r): r for r in ours}
    print("\nside by side (tapegrad vs PyTorch eager; ratio > 1: tapegrad slower)")
    print(f"{'what':<36} {'tapegrad':>12} {'pytorch':>12} {'ratio':>8}")
    for r in theirs:
        t = mine.get(key(r))
        field = "ms_per_step" if r["kind"] == "train" else "ms"
        label = f"{r['config']} " + ("train step" if r["kind"] == "train" else r["op"])
        if t is None:
            print(f"{label:<36} {'-':>12} {r[field]:>12.4f} {'-':>8}")
            continue
        ratio = t[field] / r[field] if r[field] > 0 else float("nan")
        print(f"{label:<36} {t[field]:>12.4f} {r[field]:>12.4f} {ratio:>8.2f}")
    for r in theirs:
        if r["kind"] == "train" and key(r) in mine:
            print(f"{r['config']} tokens/s: tapegrad {mine[key(r)]['tokens_per_s']:.0f}, pytorch {r['tokens_per_s']:.0f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--config", default="all", choices=["all", *CONFIGS])
    p.add_argument("--no-ops", action="store_true")
    p.add_argument("--tapegrad", help="gpu_bench's output, for a side-by-side table")
    a = p.parse_args()
    device = torch.device(a.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("pytorch_train_step: torch.cuda.is_available() is False", file=sys.stderr)
        return 1
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    print(f"PyTorch {torch.__version__} on {device} ({name}): {a.steps} timed steps after 3 warm-up, median")
    for cname, c in CONFIGS.items():
        if a.config not in ("all", cname):
            continue
        print(f"config {cname}: " + ", ".join(f"{k} {v}" for k, v in c.items()))
        bench_train_step(cname, c, device, a.steps)
        if not a.no_ops:
            bench_ops(cname, c, device)
    if a.tapegrad:
        side_by_side(read_records(a.tapegrad), RECORDS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
