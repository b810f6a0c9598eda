#!/usr/bin/python3
"""tapegrad to PyTorch and back through the tapegrad program (the CTest test pytorch_roundtrip):

    /usr/bin/python3 tests/pytorch/pytorch_roundtrip.py TAPEGRAD TAPEGRAD_LOGITS WORK_DIR

For a reverse run (the default encoder, padded sequences) and a character LM run (causal), each
trained for a few steps with `tapegrad train`:
  export  `tapegrad export RUN --format pytorch OUT`; OUT/tapegrad_model.py's model, loaded from
          OUT, gives on the first validation examples the logits tapegrad gives (tapegrad_logits);
  import  that model trained a few more steps in PyTorch and saved with OUT/tapegrad_model.py's
          writer; `tapegrad import RUN FILE --out RUN2`; tapegrad's logits of RUN2 are PyTorch's.
Logits agree within TOLERANCE (float32, every position, pads included); the largest differences
are printed. torch must be importable by /usr/bin/python3 (Debian's python3-torch, which
scripts/setup-debian.sh installs): without it the test fails.
"""
import importlib.util
import pathlib
import shutil
import subprocess
import sys

TOLERANCE = 1e-5  # max |logit difference| of float32 logits of magnitude ~5 (measured: 1.4e-6)
EXAMPLES = 32     # validation examples compared
SMALL_MODEL = ["--d-model", "32", "--heads", "2", "--layers", "2", "--ff", "64", "--batch-size", "16",
               "--steps", "30", "--eval-every", "0", "--seed", "3", "--threads", "2"]

try:
    import torch
except ImportError as e:
    sys.exit(f"pytorch_roundtrip: FAILED: {sys.executable} cannot import torch ({e}); install Debian's "
             "python3-torch (scripts/setup-debian.sh does)")


def run(*args):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"pytorch_roundtrip: FAILED: {' '.join(map(str, args))} exited {result.returncode}:\n"
                 f"{result.stdout}{result.stderr}")
    return result.stdout


def import_exported(directory):
    spec = importlib.util.spec_from_file_location(f"tapegrad_model_{directory.name}", directory / "tapegrad_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def max_diff(a, b, what):
    if a.shape != b.shape:
        sys.exit(f"pytorch_roundtrip: FAILED: {what}: shapes {tuple(a.shape)} and {tuple(b.shape)}")
    diff = (a.double() - b.double()).abs().max().item()
    print(f"  {what}: max abs difference {diff:.3g} (tolerance {TOLERANCE:g}, largest logit "
          f"{a.abs().max().item():.3g})")
    if not diff <= TOLERANCE:
        sys.exit(f"pytorch_roundtrip: FAILED: {what}: {diff:.3g} > {TOLERANCE:g}")


def check(name, tapegrad, tapegrad_logits, work, train_flags):
    print(f"{name}:")
    run_dir, out, imported = work / name, work / f"{name}-pytorch", work / f"{name}-imported"
    run(tapegrad, "train", *train_flags, *SMALL_MODEL, "--out", run_dir)
    run(tapegrad, "export", run_dir, "--format", "pytorch", out)
    tm = import_exported(out)
    model, config = tm.load(out)
    state = tm.load_safetensors(out / "model.safetensors")
    if list(state) != list(model.state_dict()):
        sys.exit(f"pytorch_roundtrip: FAILED: model.safetensors' names {list(state)} are not the state_dict's "
                 f"{list(model.state_dict())}")
    assert config["model"]["causal"] == (name == "lm")

    # tapegrad -> PyTorch
    run(tapegrad_logits, run_dir, work / f"{name}.safetensors", EXAMPLES)
    ours = tm.load_safetensors(work / f"{name}.safetensors")
    ids, mask = ours["ids"], ours["padding_mask"]
    print(f"  {ids.shape[0]} validation examples of up to {ids.shape[1]} tokens, {int(mask.sum())} pads")
    with torch.no_grad():
        max_diff(model(ids, mask), ours["logits"], "export: PyTorch's logits - tapegrad's")
        max_diff(model(ids), ours["logits"], "export, the default padding mask")

    # PyTorch -> tapegrad: a few Adam steps in PyTorch, then tapegrad import
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    targets = torch.randint(0, len(config["output_vocab"]), ids.shape, generator=torch.Generator().manual_seed(0))
    for _ in range(3):
        loss = torch.nn.functional.cross_entropy(model(ids, mask).flatten(0, 1), targets.flatten())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    tm.save_safetensors(work / f"{name}-finetuned.safetensors", model.state_dict())
    run(tapegrad, "import", run_dir, work / f"{name}-finetuned.safetensors", "--out", imported)
    run(tapegrad_logits, imported, work / f"{name}-imported.safetensors", EXAMPLES)
    theirs = tm.load_safetensors(work / f"{name}-imported.safetensors")
    with torch.no_grad():
        logits = model(ids, mask)
        if (logits - ours["logits"]).abs().max().item() < 10 * TOLERANCE:
            sys.exit("pytorch_roundtrip: FAILED: training in PyTorch did not change the logits")
        max_diff(logits, theirs["logits"], "import: tapegrad's logits - PyTorch's")


def main():
    tapegrad, tapegrad_logits, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    print(f"torch {torch.__version__}")
    torch.set_num_threads(2)
    check("reverse", tapegrad, tapegrad_logits, work, ["--task", "reverse", "--val-examples", str(EXAMPLES)])
    corpus = work / "corpus.txt"
    corpus.write_text("the cat sat on the mat. a dog ran to the park and back.\n" * 40)
    check("lm", tapegrad, tapegrad_logits, work, ["--task", "lm", "--data", corpus, "--block-size", "24"])
    print("pytorch_roundtrip: passed")


if __name__ == "__main__":
    main()
