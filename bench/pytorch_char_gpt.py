#!/usr/bin/python3
"""The PyTorch twin of `tapegrad train --task lm --arch gpt`: the same character GPT, optimiser,
schedule and data split in PyTorch eager, trained for the same steps; prints one JSON line with
the validation loss and the time per step. bench/char_gpt_side_by_side.sh runs it beside tapegrad.

    /usr/bin/python3 bench/pytorch_char_gpt.py --data TEXT [--steps N] [--seed S] [--threads T]
        [--batch-size 12] [--block-size 64] [--d-model 128] [--heads 4] [--layers 4] [--ff 512]
        [--dropout 0] [--tie-weights] [--lr 1e-3] [--warmup 100] [--min-lr-ratio 0.1]
        [--weight-decay 0.1] [--clip 1] [--val-fraction 0.1] [--score-checkpoint FILE]

--score-checkpoint FILE loads a tapegrad run's checkpoint.safetensors (its model.* weights) into this
model and prints its validation loss instead of training: the same figure as tapegrad's eval
when the two models and validation sets are the same.

What it mirrors (tapegrad's file in brackets):
  data      characters are Unicode code points; the vocabulary is the 5 reserved tokens then the
            text's distinct characters (data/char_tokenizer.h); the text's last val_fraction
            (rounded) is validation, the rest training (data/char_lm.cpp); a training window starts
            at every character, drawn in a shuffled order without replacement (one permutation per
            epoch, as data::DataLoader shuffles: not the same permutation, the same distribution);
            validation windows do not overlap (stride block_size) and are all scored
            (train/task_data.cpp, train/sequence_task.cpp: the loss summed over every validation
            position, divided by their count).
  model     token embedding and learned positions, both N(0, 0.02^2), summed; layers pre-LN
            (norm_first) encoder layers with exact gelu, causal self-attention, dropout on the
            attention weights and after each sublayer as nn.TransformerEncoderLayer has it; a final
            LayerNorm (eps 1e-5); the head the embedding itself (--tie-weights) or a Linear
            (train/model.cpp, nn/encoder_layer.cpp). Every layer initialised on its own; every
            Linear, and each of q, k and v's (E,E) parts of in_proj, xavier-uniform with zero bias
            (nn/linear.cpp, nn/multi_head_attention.cpp); LayerNorms ones and zeros.
  optimiser AdamW (betas 0.9, 0.999, eps 1e-8), weight decay on the parameters of 2 or more
            dimensions whose name has no "norm" (optim/optimizer.cpp weight_decay_groups); the
            gradient norm clipped to --clip; the lr linear warmup to lr over warmup steps, then
            cosine decay to lr * min_lr_ratio at the last step (optim/lr_schedule.h), set before
            each update.
The step's time (ms) runs from drawing the batch to the end of zero_grad, with loss.item(), as
tapegrad's train record times its update; the median over the steps after the first 10.
"""
import argparse
import json
import math
import pathlib
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_RESERVED = 5  # <pad> <unk> <bos> <sep> <mask>: every tapegrad vocabulary starts with them
WARMUP_STEPS_UNTIMED = 10


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="a UTF-8 text file")
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    p.add_argument("--batch-size", type=int, default=12)
    p.add_argument("--block-size", type=int, default=64)
    p.add_argument("--d-model", type=int, default=128)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--ff", type=int, default=512)
    p.add_argument("--dropout", type=float, default=0.0)
    p.add_argument("--tie-weights", action="store_true")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--min-lr-ratio", type=float, default=0.1)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--clip", type=float, default=1.0, help="max gradient norm; 0 = no clipping")
    p.add_argument("--val-fraction", type=float, default=0.1)
    p.add_argument("--score-checkpoint", help="a tapegrad checkpoint to score, not train")
    return p.parse_args()


def read_ids(path):
    """The text's characters as ids (reserved tokens first, then the characters by code point)."""
    text = open(path, encoding="utf-8").read()
    if text.startswith("\ufeff"):  # a byte order mark is not part of the text (data/text.h)
        text = text[1:]
    chars = sorted(set(text))
    index = {c: NUM_RESERVED + i for i, c in enumerate(chars)}
    return torch.tensor([index[c] for c in text], dtype=torch.int64), NUM_RESERVED + len(chars)


class CharGPT(nn.Module):
    def __init__(self, vocab, max_len, d_model, heads, layers, ff, dropout, tie_weights):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model)
        self.pos_encoding = nn.Parameter(torch.empty(max_len, d_model))
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d_model, heads, ff, dropout, activation="gelu", batch_first=True,
                                       norm_first=True) for _ in range(layers))
        self.norm = nn.LayerNorm(d_model)
        self.head = None if tie_weights else nn.Linear(d_model, vocab)
        self.register_buffer("causal_mask", torch.ones(max_len, max_len, dtype=torch.bool).triu(1), persistent=False)
        self.reset_parameters()

    @torch.no_grad()
    def reset_parameters(self):
        nn.init.normal_(self.embedding.weight, 0, 0.02)
        nn.init.normal_(self.pos_encoding, 0, 0.02)
        linears = [self.head] if self.head is not None else []
        for layer in self.layers:
            E = layer.self_attn.embed_dim
            for part in layer.self_attn.in_proj_weight.view(3, E, E):  # q, k, v: separate Linears in tapegrad
                nn.init.xavier_uniform_(part)
            nn.init.zeros_(layer.self_attn.in_proj_bias)
            linears += [layer.self_attn.out_proj, layer.linear1, layer.linear2]
        for linear in linears:
            nn.init.xavier_uniform_(linear.weight)
            nn.init.zeros_(linear.bias)

    def forward(self, ids):  # (B,T) -> (B,T,V)
        T = ids.shape[1]
        x = self.embedding(ids) + self.pos_encoding[:T]
        for layer in self.layers:
            x = layer(x, src_mask=self.causal_mask[:T, :T])
        x = self.norm(x)
        return self.head(x) if self.head is not None else x @ self.embedding.weight.t()


def load_tapegrad_weights(model, path):
    """A tapegrad gpt checkpoint's weights into `model` (q, k and v concatenated into in_proj)."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "train"))
    import tapegrad_model  # train/tapegrad_model.py: reads safetensors without the safetensors package
    w = {k[len("model."):]: v for k, v in tapegrad_model.load_safetensors(path).items() if k.startswith("model.")}
    state = {"embedding.weight": w.pop("embedding.weight"), "pos_encoding": w.pop("pos_encoding.weight")}
    for name, t in w.items():
        name = name.removeprefix("encoder.")
        for x in "qkv":  # q_proj, k_proj, v_proj -> the x-th (E,E) part of in_proj
            name = name.replace(f"self_attn.{x}_proj.", "self_attn.in_proj.")
        state[name] = torch.cat([state[name], t]) if name in state else t
    state = {k.replace("in_proj.weight", "in_proj_weight").replace("in_proj.bias", "in_proj_bias"): v
             for k, v in state.items()}
    model.load_state_dict(state, strict=True)


def weight_decay_groups(model, weight_decay):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.dim() < 2 or "norm" in name.lower() else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def warmup_cosine(lr, warmup, total, min_lr):
    def at(step):  # step >= 1: the update about to run
        if step <= warmup:
            return lr * step / warmup
        if step > total:
            return min_lr
        return min_lr + (lr - min_lr) * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))) / 2
    return at


def windows(ids, starts, T):  # (N,) starts -> inputs (N,T), targets (N,T)
    offsets = starts[:, None] + torch.arange(T + 1)
    rows = ids[offsets]
    return rows[:, :-1], rows[:, 1:]


@torch.no_grad()
def evaluate(model, ids, T, batch_size):
    model.eval()
    starts = torch.arange(0, len(ids) - T, T)  # every window with a next character: stride T
    loss_sum, count = 0.0, 0
    for i in range(0, len(starts), batch_size):
        inputs, targets = windows(ids, starts[i:i + batch_size], T)
        logits = model(inputs)
        loss_sum += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="sum").item()
        count += targets.numel()
    model.train()
    return loss_sum / count


def main():
    a = parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    ids, vocab = read_ids(a.data)
    n_val = math.floor(len(ids) * a.val_fraction + 0.5)  # llround
    train_ids, val_ids = ids[:len(ids) - n_val], ids[len(ids) - n_val:]
    T, B = a.block_size, a.batch_size
    model = CharGPT(vocab, T, a.d_model, a.heads, a.layers, a.ff, a.dropout, a.tie_weights).train()
    if a.score_checkpoint:
        load_tapegrad_weights(model, a.score_checkpoint)
        print(json.dumps({"scored": a.score_checkpoint, "val_loss": evaluate(model, val_ids, T, B)}))
        return
    opt = torch.optim.AdamW(weight_decay_groups(model, a.weight_decay), lr=a.lr, betas=(0.9, 0.999), eps=1e-8)
    schedule = warmup_cosine(a.lr, a.warmup, a.steps, a.lr * a.min_lr_ratio)
    loader = torch.Generator().manual_seed(a.seed)
    n_windows = len(train_ids) - T
    order, next_row = torch.randperm(n_windows, generator=loader), 0
    times, losses = [], []
    for step in range(1, a.steps + 1):
        start = time.perf_counter()
        if next_row + B > n_windows:  # a new epoch, a new order (the last short batch is left out)
            order, next_row = torch.randperm(n_windows, generator=loader), 0
        inputs, targets = windows(train_ids, order[next_row:next_row + B], T)
        next_row += B
        logits = model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))
        loss.backward()
        if a.clip > 0:
            nn.utils.clip_grad_norm_(model.parameters(), a.clip)
        for group in opt.param_groups:
            group["lr"] = schedule(step)
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.item())
        times.append((time.perf_counter() - start) * 1e3)
    val_start = time.perf_counter()
    val_loss = evaluate(model, val_ids, T, B)
    print(json.dumps({
        "framework": "pytorch", "threads": a.threads, "seed": a.seed, "steps": a.steps,
        "parameters": sum(p.numel() for p in model.parameters()), "vocab": vocab,
        "train_loss": round(losses[-1], 5), "val_loss": round(val_loss, 5),
        "median_ms": round(statistics.median(times[WARMUP_STEPS_UNTIMED:] or times), 3),
        "val_ms": round((time.perf_counter() - val_start) * 1e3, 1), "torch": torch.__version__}), flush=True)


if __name__ == "__main__":
    main()
