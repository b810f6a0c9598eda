#!/usr/bin/python3
"""tapegrad to PyTorch and back through the tapegrad program (the CTest tests pytorch_roundtrip and
pytorch_gpt_roundtrip):

    /usr/bin/python3 tests/pytorch/pytorch_roundtrip.py TAPEGRAD TAPEGRAD_LOGITS WORK_DIR encoder|gpt

encoder: a reverse run (padded sequences) and a character LM run (causal) of the default arch;
gpt: a character LM run of arch gpt with a tied head, and one on BPE tokens learned in the run
(--tokenizer bpe) with an untied head. Each is trained for a few steps with `tapegrad train`:
  export  `tapegrad export RUN --format pytorch OUT`; OUT/tapegrad_model.py's model, loaded from
          OUT, gives on the first validation examples the logits tapegrad gives (tapegrad_logits);
  text    (lm runs) load_text_tokens(OUT) gives tapegrad's ids: of the validation text for
          characters; for BPE, of a text with every kind of chunk and of random bytes, against
          `tapegrad tokenizer encode` with OUT/tokenizer.json; decode gives the bytes back;
  import  that model trained a few more steps in PyTorch and saved with OUT/tapegrad_model.py's
          writer; `tapegrad import RUN FILE --out RUN2`; tapegrad's logits of RUN2 are PyTorch's.
Logits agree within TOLERANCE (float32, every position, pads included); the largest differences
are printed. torch must be importable by /usr/bin/python3 (Debian's python3-torch, which
scripts/setup-debian.sh installs): without it the test fails.
"""
import importlib.util
import pathlib
import random
import shutil
import struct
import subprocess
import sys

TOLERANCE = 1e-5  # max |logit difference| of float32 logits of magnitude ~5 (measured: 1.4e-6)
EXAMPLES = 32     # validation examples compared
SMALL_MODEL = ["--d-model", "32", "--heads", "2", "--layers", "2", "--ff", "64", "--batch-size", "16",
               "--steps", "30", "--eval-every", "0", "--seed", "3", "--threads", "2"]


def fail(message):
    sys.exit(f"pytorch_roundtrip: FAILED: {message}")


try:
    import torch
except ImportError as e:
    fail(f"{sys.executable} cannot import torch ({e}); install Debian's python3-torch (scripts/setup-debian.sh "
         "does)")


def run(*args):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{' '.join(map(str, args))} exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return result.stdout


def import_exported(directory):
    spec = importlib.util.spec_from_file_location(f"tapegrad_model_{directory.name}", directory / "tapegrad_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def max_diff(a, b, what):
    if a.shape != b.shape:
        fail(f"{what}: shapes {tuple(a.shape)} and {tuple(b.shape)}")
    diff = (a.double() - b.double()).abs().max().item()
    print(f"  {what}: max abs difference {diff:.3g} (tolerance {TOLERANCE:g}, largest logit "
          f"{a.abs().max().item():.3g})")
    if not diff <= TOLERANCE:
        fail(f"{what}: {diff:.3g} > {TOLERANCE:g}")


def read_token_id_file(path):
    """The ids of a token id file (data/token_id_file.h: an 88-byte header, then 2- or 4-byte ids)."""
    data = path.read_bytes()
    width, count = struct.unpack("<IQ", data[12:24])
    return list(struct.unpack(f"<{count}{'H' if width == 2 else 'I'}", data[88:]))


def bpe_test_text(corpus):
    """Bytes with every kind of chunk (runs of spaces, other white space, punctuation after a space,
    UTF-8, bytes that are not UTF-8, a special token's name as text), some corpus text, and seeded
    random bytes, spaces and punctuation among them."""
    rng = random.Random(7)
    noise = bytes(rng.choice(b"ab ,.\n\t\xc3\xa9\xff<>" + bytes([rng.randrange(256)])) for _ in range(3000))
    return (b"the cat  sat,\tthen   ran!! \r\n\n  <bos> caf\xc3\xa9 \xe2\x82\xac5 \xff\xfe x  " + corpus[:2000] +
            noise + b"  ")


def check_text(name, tm, out, work, tapegrad, ids, corpus):
    """load_text_tokens(OUT) encodes as tapegrad does and decodes back."""
    text = tm.load_text_tokens(out)
    if text.bpe is None:  # characters: tapegrad's validation ids, decoded and encoded again
        for row in ids.tolist():
            if text.encode(text.decode(row)) != row:
                fail(f"{name}: encode(decode(ids)) is not tapegrad's ids {row}")
        print(f"  text: characters, {ids.shape[0]} validation windows decoded and encoded to tapegrad's ids")
        return
    sample = bpe_test_text(corpus)
    (work / f"{name}-text.txt").write_bytes(sample)
    run(tapegrad, "tokenizer", "encode", "--tokenizer", out / "tokenizer.json", work / f"{name}-text.txt",
        "--out", work / f"{name}-text.bin")
    ours = read_token_id_file(work / f"{name}-text.bin")
    theirs = text.bpe.encode(sample)
    if theirs != ours:
        at = next((i for i, (a, b) in enumerate(zip(theirs, ours)) if a != b), min(len(theirs), len(ours)))
        fail(f"{name}: tapegrad_model.py's BPE ids differ from tapegrad's at {at}: {theirs[at:at + 8]} vs "
             f"{ours[at:at + 8]}")
    if text.bpe.decode(theirs) != sample:
        fail(f"{name}: decode(encode(bytes)) is not the bytes")
    as_text = sample.decode("utf-8", "surrogateescape")
    model_ids = text.encode(as_text)
    if model_ids != [len(tm.RESERVED_TOKENS) + i for i in ours] or text.decode(model_ids) != as_text:
        fail(f"{name}: TextTokens: the model ids are not the tokenizer's after the reserved ones, or "
             "decode(encode(text)) is not the text")
    print(f"  text: {len(sample)} bytes -> {len(ours)} BPE ids, tapegrad's; decoded back byte for byte")


def check(name, tapegrad, tapegrad_logits, work, train_flags, corpus=None):
    print(f"{name}:")
    run_dir, out, imported = work / name, work / f"{name}-pytorch", work / f"{name}-imported"
    run(tapegrad, "train", *train_flags, *SMALL_MODEL, "--out", run_dir)
    run(tapegrad, "export", run_dir, "--format", "pytorch", out)
    tm = import_exported(out)
    model, config = tm.load(out)
    state = tm.load_safetensors(out / "model.safetensors")
    if list(state) != list(model.state_dict()):
        fail(f"{name}: model.safetensors' names {list(state)} are not the state_dict's {list(model.state_dict())}")
    if config["model"]["causal"] != (corpus is not None):
        fail(f"{name}: config.json's causal is {config['model']['causal']}")

    # tapegrad -> PyTorch
    run(tapegrad_logits, run_dir, work / f"{name}.safetensors", EXAMPLES)
    ours = tm.load_safetensors(work / f"{name}.safetensors")
    ids, mask = ours["ids"], ours["padding_mask"]
    print(f"  {ids.shape[0]} validation examples of up to {ids.shape[1]} tokens, {int(mask.sum())} pads")
    with torch.no_grad():
        max_diff(model(ids, mask), ours["logits"], "export: PyTorch's logits - tapegrad's")
        max_diff(model(ids), ours["logits"], "export, the default padding mask")
    if corpus is not None:
        check_text(name, tm, out, work, tapegrad, ids, corpus)

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
            fail("training in PyTorch did not change the logits")
        max_diff(logits, theirs["logits"], "import: tapegrad's logits - PyTorch's")


def main():
    tapegrad, tapegrad_logits, work, archs = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), sys.argv[4]
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    print(f"torch {torch.__version__}")
    torch.set_num_threads(2)
    corpus = work / "corpus.txt"
    corpus.write_text("the cat sat on the mat. a dog ran to the park and back.\n" * 40)
    lm = ["--task", "lm", "--data", corpus, "--block-size", "24"]
    if archs == "encoder":
        check("reverse", tapegrad, tapegrad_logits, work, ["--task", "reverse", "--val-examples", str(EXAMPLES)])
        check("lm", tapegrad, tapegrad_logits, work, lm, corpus.read_bytes())
    elif archs == "gpt":
        check("gpt", tapegrad, tapegrad_logits, work, [*lm, "--arch", "gpt", "--tie-weights"], corpus.read_bytes())
        check("gpt-bpe", tapegrad, tapegrad_logits, work, [*lm, "--arch", "gpt", "--tokenizer", "bpe", "--vocab-size",
                                                           "300"], corpus.read_bytes())
    else:
        fail(f"the fourth argument must be encoder or gpt, got {archs!r}")
    print("pytorch_roundtrip: passed")


if __name__ == "__main__":
    main()
