#!/usr/bin/env bash
# char_gpt_side_by_side.sh: the same character GPT trained on a real English text in tapegrad
# (`tapegrad train --task lm --arch gpt`) and in PyTorch eager (bench/pytorch_char_gpt.py), at
# nanoGPT's CPU "baby GPT" size (4 layers, 4 heads, d_model 128, ff 512, block 64, batch 12, AdamW
# lr 1e-3, dropout 0, tied weights), for the same steps and seeds; a table of the validation loss
# (mean and spread over the seeds) and the time per step.
#
#   bench/char_gpt_side_by_side.sh [--steps N] [--warmup N] [--seeds "0 1 2"] [--torch-threads "1 2"]
#                                  [--tapegrad-threads "2"] [--text FILE] [--tapegrad BINARY] [--build-dir DIR]
#
# Needs: python3-torch (run with /usr/bin/python3), libopenblas0-pthread (else PyTorch's matrix
# products run in Debian's reference BLAS, about 10x slower: the script stops), and, for the
# default text, vim-runtime: the text is the Vim user manual (/usr/share/vim/vim90/doc/usr_*.txt
# in order, 632 KB, 117 distinct characters). Without --tapegrad it configures a Release build in
# build/bench (ccache when installed, more CMake arguments in $CMAKE_ARGS) and builds the program.
#
# One round per seed; a round trains once with each setting: tapegrad at each of
# --tapegrad-threads (`train --threads`), and PyTorch at each of --torch-threads
# (torch.set_num_threads, OMP_NUM_THREADS and OPENBLAS_NUM_THREADS all set to it); tapegrad goes
# first in odd rounds and last in even ones, so load from other work on the machine falls on
# both frameworks alike. A run's ms/step is the median of its steps after the first 10; a
# setting's is the median over its rounds. "PyTorch best" is the setting with the lowest ms/step;
# the targets compare tapegrad's first --tapegrad-threads setting with it. Raw JSON lines go to
# $build/char_gpt_side_by_side.jsonl.
# It ends with a forward check: PyTorch's model, given the first tapegrad run's trained weights
# (pytorch_char_gpt.py --score-checkpoint), scores the validation set as tapegrad's eval did.
# The loss target holds when the two means differ by no more than the larger of the two seed
# ranges (max - min).
set -euo pipefail

steps=300
warmup=""
seeds="0 1 2"
torch_threads="1 2"
tapegrad_threads="2"
text=""
tapegrad=""
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/bench"
usage="usage: $0 [--steps N] [--warmup N] [--seeds \"0 1 2\"] [--torch-threads \"1 2\"] [--tapegrad-threads \"2\"] [--text FILE] [--tapegrad BINARY] [--build-dir DIR]"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --torch-threads) torch_threads=$2; shift 2 ;;
    --tapegrad-threads) tapegrad_threads=$2; shift 2 ;;
    --text) text=$2; shift 2 ;;
    --tapegrad) tapegrad=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
warmup=${warmup:-$((steps / 10))}  # nanoGPT warms up for 100 of its 5000 steps; a short run needs a share
mkdir -p "$build"

python=/usr/bin/python3
$python -c 'import torch' 2> /dev/null || { echo "needs Debian's python3-torch (apt-get install python3-torch)" >&2; exit 1; }
source "$root/bench/libtorch_blas.sh"
require_openblas "$($python -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))')"

if [[ -z "$text" ]]; then
  manual=(/usr/share/vim/vim90/doc/usr_[0-9]*.txt)
  [[ -f "${manual[0]}" ]] || { echo "no Vim user manual: apt-get install vim-runtime, or give --text FILE" >&2; exit 1; }
  text="$build/vim_user_manual.txt"
  cat "${manual[@]}" > "$text"
fi

if [[ -z "$tapegrad" ]]; then
  launcher=()
  command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  generator=()
  command -v ninja > /dev/null && generator=(-G Ninja)
  # shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTAPEGRAD_CUDA=OFF "${launcher[@]}" \
    ${CMAKE_ARGS:-} > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)" --target tapegrad_program
  tapegrad="$build/bin/tapegrad"
fi

# The model and optimisation, as both sides spell them. The cosine decay ends at lr * 0.1 on both:
# tapegrad's TrainConfig::min_lr_ratio (no flag), pytorch_char_gpt.py's --min-lr-ratio default.
shape=(--block-size 64 --batch-size 12 --d-model 128 --heads 4 --layers 4 --ff 512 --dropout 0 --tie-weights
       --lr 1e-3 --warmup "$warmup" --weight-decay 0.1 --clip 1 --val-fraction 0.1 --steps "$steps")
choose_openblas_coretype env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $python "$root/bench/pytorch_char_gpt.py" \
  --data "$text" "${shape[@]}" --steps 40 --threads 1

out="$build/char_gpt_side_by_side.jsonl"
: > "$out"

run_tapegrad() {
  local seed=$1 threads=$2 dir="$build/char_gpt_tapegrad_seed${1}_threads$2"
  "$tapegrad" train --task lm --arch gpt --data "$text" "${shape[@]}" --eval-every 0 --seed "$seed" \
    --threads "$threads" --out "$dir" --overwrite > "$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
  $python - "$dir/metrics.jsonl" "$seed" "$threads" "$steps" >> "$out" <<'EOF'
import json, statistics, sys
records = [json.loads(line) for line in open(sys.argv[1])]
ms = [r["ms"] for r in records if r["type"] == "train"]
val = [r for r in records if r["type"] == "eval"][-1]
print(json.dumps({"framework": "tapegrad", "threads": int(sys.argv[3]), "seed": int(sys.argv[2]),
                  "steps": int(sys.argv[4]),
                  "train_loss": [r["loss"] for r in records if r["type"] == "train"][-1], "val_loss": val["loss"],
                  "median_ms": round(statistics.median(ms[10:] or ms), 3), "val_ms": val["ms"]}))
EOF
}

run_pytorch() {
  local seed=$1 threads=$2
  OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads $python "$root/bench/pytorch_char_gpt.py" --data "$text" \
    "${shape[@]}" --seed "$seed" --threads "$threads" >> "$out"
}

echo "text: $text ($(wc -c < "$text") bytes); $steps steps, warmup $warmup; tapegrad: $tapegrad"
echo "load before: $(uptime)"
round=0
for seed in $seeds; do
  round=$((round + 1))
  echo "round $round (seed $seed)" >&2
  if ((round % 2 == 1)); then for t in $tapegrad_threads; do run_tapegrad "$seed" "$t"; done; fi
  for t in $torch_threads; do run_pytorch "$seed" "$t"; done
  if ((round % 2 == 0)); then for t in $tapegrad_threads; do run_tapegrad "$seed" "$t"; done; fi
done
echo "load after:  $(uptime)"

# The forward check: PyTorch's model with the first tapegrad run's trained weights scores the
# validation set as tapegrad's eval did, when the two models and validation sets are the same.
first_seed=${seeds%% *} first_threads=${tapegrad_threads%% *}
checked="$build/char_gpt_tapegrad_seed${first_seed}_threads$first_threads"
echo "forward check (seed $first_seed): tapegrad's validation loss" \
  "$($python -c 'import json, sys; print([json.loads(l) for l in open(sys.argv[1])][-1]["loss"])' "$checked/metrics.jsonl");" \
  "PyTorch's with tapegrad's weights $($python "$root/bench/pytorch_char_gpt.py" --data "$text" "${shape[@]}" \
  --score-checkpoint "$checked/checkpoint.safetensors" | $python -c 'import json, sys; print(json.load(sys.stdin)["val_loss"])')"

$python - "$out" "${tapegrad_threads%% *}" <<'EOF'
import json, statistics, sys
from collections import defaultdict

runs = [json.loads(line) for line in open(sys.argv[1])]
by_setting = defaultdict(list)
for r in runs:
    by_setting[(r["framework"], r["threads"])].append(r)

def summary(rs):
    losses = [r["val_loss"] for r in rs]
    return {"mean": statistics.mean(losses), "std": statistics.stdev(losses) if len(losses) > 1 else 0.0,
            "lo": min(losses), "hi": max(losses), "ms": statistics.median(r["median_ms"] for r in rs),
            "seeds": [r["seed"] for r in rs], "losses": losses}

table = {s: summary(rs) for s, rs in by_setting.items()}
tg_setting = ("tapegrad", int(sys.argv[2]))
tg = table[tg_setting]
tapegrad = [tg_setting] + sorted(s for s in table if s[0] == "tapegrad" and s != tg_setting)
pytorch = sorted((s for s in table if s[0] == "pytorch"), key=lambda s: table[s]["ms"])
print()
print(f"{runs[0]['steps']} steps, seeds {tg['seeds']}: validation loss (nats per character) and ms/step "
      "(median over rounds of each run's median)")
print("| framework | threads | val loss mean | std | min - max | ms/step | PyTorch best / this |")
print("|---|---|---|---|---|---|---|")
best = table[pytorch[0]] if pytorch else None
for s in tapegrad + pytorch:
    t = table[s]
    ratio = f"{best['ms'] / t['ms']:.2f}" if best else "-"
    print(f"| {s[0]} | {s[1]} | {t['mean']:.4f} | {t['std']:.4f} | {t['lo']:.4f} - {t['hi']:.4f} | {t['ms']:.1f} "
          f"| {ratio} |")
if best:
    spread = max(tg["hi"] - tg["lo"], best["hi"] - best["lo"])
    diff = tg["mean"] - best["mean"]
    print()
    print(f"loss: tapegrad ({tg_setting[1]} threads) - PyTorch best ({pytorch[0][1]} threads) = {diff:+.4f}; "
          f"the larger seed range is "
          f"{spread:.4f}: {'within' if abs(diff) <= spread else 'OUTSIDE'} the spread")
    print(f"speed: PyTorch's best ms/step / tapegrad's ({tg_setting[1]} threads) = {best['ms'] / tg['ms']:.2f} "
          f"(target >= 6: "
          f"{'holds' if best['ms'] / tg['ms'] >= 6 else 'does not hold'})")
print()
print("every run: framework threads seed val_loss train_loss median_ms val_ms")
for r in runs:
    print(f"  {r['framework']:<8} {r['threads']} {r['seed']} {r['val_loss']:.4f} {r['train_loss']:.4f} "
          f"{r['median_ms']:8.2f} {r['val_ms']:8.1f}")
EOF
