"""A tapegrad model in PyTorch: `tapegrad export RUN --format pytorch OUT` writes this file into
OUT beside model.safetensors (the state_dict, in exactly this model's names), config.json (the
model's sizes and the run's vocabularies) and, for a language model on BPE tokens,
tokenizer.json (the run's tokenizer file). Run it from OUT, or put OUT on sys.path:

    import torch, tapegrad_model
    model, config = tapegrad_model.load("OUT")               # load_state_dict(strict=True), eval mode
    ids = torch.tensor([tapegrad_model.encode(config, ["3", "1", "2", "<sep>", "<mask>", "<mask>", "<mask>"])])
    logits = model(ids)                                        # (B, T, classes)
    tapegrad_model.decode(config, logits.argmax(-1)[0].tolist())

A language model (task lm) reads and writes text, its characters or its BPE tokens:

    text = tapegrad_model.load_text_tokens("OUT")             # text <-> model ids
    ids = text.encode("the cat")
    for _ in range(20):                                        # greedy, within the model's max_len
        ids.append(model(torch.tensor([ids]))[0, -1].argmax().item())
    print(text.decode(ids))

and, after training it further in PyTorch, save it for `tapegrad import RUN FILE --out DIR`:

    tapegrad_model.save_safetensors("finetuned.safetensors", model.state_dict())

The models are tapegrad's TransformerModel (train/model.h) in torch.nn modules, one class per
architecture (config["model"]["arch"], "encoder" when absent):
  TapegradModel ("encoder")
    x      = embedding(ids) + pe[:T]       <pad> (id 0) embeds to zeros; pe the sinusoidal table
    x      = encoder(x, masks)             pre-LN layers (norm_first), relu, then the final LayerNorm
    logits = head(x)                       Linear(d_model, classes)
  GPT ("gpt", GPT-2's shape)
    x      = embedding(ids) + pos_encoding.weight[:T]     learned positions
    x      = encoder(x, masks)             pre-LN layers, gelu, then the final LayerNorm
    logits = head(x)                       Linear(d_model, classes), or with tie_weights
           | x @ embedding.weight^T        the token embedding itself: no head module, so the
                                           state_dict holds the table once (embedding.weight), as
                                           tapegrad's does, and load_state_dict(strict=True) takes it
with a padding mask (ids == <pad>) and, for a language model (causal), position t seeing only
positions <= t.

Debian 12 packages no Python `safetensors`, so load_safetensors and save_safetensors read and
write the format with the standard library (json, struct) and torch.frombuffer: an 8-byte
little-endian header length, a JSON header {name: {dtype, shape, data_offsets}, "__metadata__":
{...}}, then the tensors' little-endian bytes.
"""
import json
import math
import pathlib
import re
import struct

import torch
from torch import nn
from torch.nn import functional as F

# Every vocabulary starts with these (data/vocab.h); <pad> (id 0) fills short sequences.
RESERVED_TOKENS = ["<pad>", "<unk>", "<bos>", "<sep>", "<mask>"]
PAD_ID = 0
DTYPES = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16, "BF16": torch.bfloat16,
          "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
          "BOOL": torch.bool}


def load_safetensors(path):
    """{name: tensor} from a safetensors file."""
    data = pathlib.Path(path).read_bytes()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + header_len])
    header.pop("__metadata__", None)
    body = memoryview(data)[8 + header_len:]
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        dtype = DTYPES[entry["dtype"]]
        raw = bytearray(body[begin:end])  # writable: torch.frombuffer warns on read-only memory
        flat = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        tensors[name] = flat.reshape(entry["shape"])
    return tensors


def save_safetensors(path, tensors, metadata=None):
    """Writes {name: tensor} as a safetensors file."""
    names = {dtype: name for name, dtype in DTYPES.items()}
    header = {"__metadata__": metadata} if metadata else {}
    blobs, offset = [], 0
    for name, t in tensors.items():
        blob = t.detach().contiguous().cpu().numpy().tobytes()
        header[name] = {"dtype": names[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    pathlib.Path(path).write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def sinusoidal_table(max_len, d_model):
    """pe[pos, c] = sin or cos(pos / 10000^((c - c % 2) / d_model)), in float64 with the C library's
    sin, cos and pow (as tapegrad computes it), then rounded to float32: the same bits."""
    values = [(math.sin if c % 2 == 0 else math.cos)(pos / math.pow(10000.0, (c - c % 2) / d_model))
              for pos in range(max_len) for c in range(d_model)]
    return torch.tensor(values, dtype=torch.float64).reshape(max_len, d_model).float()


def causal_mask(T, device):
    """(T,T) bool, True above the diagonal: position t does not attend to the positions after it."""
    return torch.ones(T, T, dtype=torch.bool, device=device).triu(1)


def pre_ln_encoder(d_model, heads, layers, ff, dropout, activation):
    """tapegrad's nn::TransformerEncoder: norm_first layers, then a final LayerNorm."""
    layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=ff, dropout=dropout, activation=activation,
                                       batch_first=True, norm_first=True)
    return nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d_model), enable_nested_tensor=False)


class TapegradModel(nn.Module):
    """arch "encoder": per-position labels, or a causal language model."""

    def __init__(self, vocab_size, num_classes, max_len, d_model, heads, layers, ff, dropout, causal):
        super().__init__()
        self.causal = causal
        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=PAD_ID)
        self.register_buffer("pe", sinusoidal_table(max_len, d_model), persistent=False)  # not in the state_dict
        self.encoder = pre_ln_encoder(d_model, heads, layers, ff, dropout, "relu")
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, ids, padding_mask=None):
        """ids (B,T) int64, padding_mask (B,T) bool (True = pad; default ids == <pad>) -> logits (B,T,classes)"""
        T = ids.shape[1]
        if padding_mask is None:
            padding_mask = ids == PAD_ID
        x = self.embedding(ids) + self.pe[:T]
        mask = causal_mask(T, ids.device) if self.causal else None
        return self.head(self.encoder(x, mask=mask, src_key_padding_mask=padding_mask))


class GPT(nn.Module):
    """arch "gpt": a decoder-only language model in GPT-2's shape (always causal)."""

    def __init__(self, vocab_size, num_classes, max_len, d_model, heads, layers, ff, dropout, causal=True,
                 tie_weights=False):
        super().__init__()
        if not causal:
            raise ValueError("a gpt model is causal")
        if tie_weights and num_classes != vocab_size:
            raise ValueError(f"tie_weights needs num_classes == vocab_size, got {num_classes} and {vocab_size}")
        self.embedding = nn.Embedding(vocab_size, d_model)  # no padding row: a tied head would train it
        self.pos_encoding = nn.Embedding(max_len, d_model)  # the learned table, pos_encoding.weight (max_len, E)
        for table in (self.embedding, self.pos_encoding):
            nn.init.normal_(table.weight, std=0.02)  # GPT-2's, as tapegrad initialises them
        self.encoder = pre_ln_encoder(d_model, heads, layers, ff, dropout, "gelu")
        self.head = None if tie_weights else nn.Linear(d_model, num_classes)

    def forward(self, ids, padding_mask=None):
        """ids (B,T) int64 with T <= max_len, padding_mask (B,T) bool (True = pad; default ids == <pad>)
        -> logits (B,T,classes)"""
        T = ids.shape[1]
        if padding_mask is None:
            padding_mask = ids == PAD_ID
        x = self.embedding(ids) + self.pos_encoding.weight[:T]
        x = self.encoder(x, mask=causal_mask(T, ids.device), src_key_padding_mask=padding_mask)
        return F.linear(x, self.embedding.weight) if self.head is None else self.head(x)


ARCHS = {"encoder": TapegradModel, "gpt": GPT}  # config["model"]["arch"] -> the model's class


def load(directory):
    """(model in eval mode, config) from an export directory."""
    directory = pathlib.Path(directory)
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    arguments = dict(config["model"])
    model = ARCHS[arguments.pop("arch", "encoder")](**arguments)
    model.load_state_dict(load_safetensors(directory / "model.safetensors"), strict=True)
    return model.eval(), config


def encode(config, tokens):
    """Input token strings -> ids (a token the run's input vocabulary lacks is an error)."""
    ids = {token: i for i, token in enumerate(config["input_vocab"])}
    unknown = [t for t in tokens if t not in ids]
    if unknown:
        raise ValueError(f"tokens not in the input vocabulary: {unknown}")
    return [ids[t] for t in tokens]


def decode(config, ids):
    """Output class ids -> token strings."""
    return [config["output_vocab"][i] for i in ids]


# The byte classes of tapegrad's pre-tokenizer (data/bpe_tokenizer.h, bpe_chunks): letters, digits and
# every byte >= 0x80 (a UTF-8 character stays whole); the space; other white space; punctuation (the rest).
WORD = rb"0-9A-Za-z\x80-\xff"
OTHER_SPACE = rb"\t\n\x0b\x0c\r"
# A chunk: a word or a run of punctuation, with the single space before it; a run of spaces, less
# the last one where a word or punctuation follows (that space begins the next chunk); a run of
# other white space.
CHUNK = re.compile(rb" ?[" + WORD + rb"]+| ?[^" + WORD + rb" " + OTHER_SPACE + rb"]+| +(?![^ " + OTHER_SPACE +
                   rb"])|[" + OTHER_SPACE + rb"]+")


class BpeTokenizer:
    """A tapegrad byte-level BPE tokenizer (tokenizer.json; data/bpe_file.h): ids 0-255 the bytes,
    256 + i merge i (joining the ids merges[i]), then the special tokens, which encode never
    produces. Encodes as tapegrad does: the text cut into chunks (CHUNK), and in each chunk the pair
    of lowest merge rank merged everywhere, left to right, until no pair of the chunk is a merge."""

    def __init__(self, merges, specials):
        self.merges = merges  # [(a, b)]: merge i makes id 256 + i
        self.specials = specials
        self.ranks = {pair: i for i, pair in enumerate(merges)}
        self.token_bytes = [bytes([b]) for b in range(256)]  # per id: what it decodes to
        for i, (a, b) in enumerate(merges):
            made = len(self.token_bytes)
            if not (0 <= a < made and 0 <= b < made):
                raise ValueError(f"merge {i} ({a}, {b}) must join two ids made before it, in [0, {made})")
            self.token_bytes.append(self.token_bytes[a] + self.token_bytes[b])
        self.token_bytes += [name.encode() for name in specials]

    @classmethod
    def load(cls, path):
        file = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        if file.get("format") != "tapegrad-bpe" or file.get("version") != 1:
            raise ValueError(f"{path}: not a tapegrad BPE tokenizer (format tapegrad-bpe, version 1)")
        flat = file["merges"]
        return cls(list(zip(flat[0::2], flat[1::2])), file["specials"])

    def encode(self, text):
        """str or bytes -> token ids (a str as its UTF-8 bytes; surrogate-escaped bytes as themselves)."""
        data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")
        ids, seen = [], {}  # a word recurs: encode it once
        for chunk in CHUNK.findall(data):
            if chunk not in seen:
                seen[chunk] = self._encode_chunk(chunk)
            ids += seen[chunk]
        return ids

    def decode(self, ids):
        """token ids -> bytes (a special token as its name)."""
        bad = [i for i in ids if not 0 <= i < len(self.token_bytes)]
        if bad:
            raise ValueError(f"ids outside the vocabulary of {len(self.token_bytes)} tokens: {bad[:10]}")
        return b"".join(self.token_bytes[i] for i in ids)

    def _encode_chunk(self, chunk):
        ids = list(chunk)
        while True:
            present = [self.ranks[pair] for pair in zip(ids, ids[1:]) if pair in self.ranks]
            if not present:
                return ids
            rank = min(present)
            a, b = self.merges[rank]
            merged, i = [], 0
            while i < len(ids):
                pair = i + 1 < len(ids) and ids[i] == a and ids[i + 1] == b
                merged.append(256 + rank if pair else ids[i])
                i += 2 if pair else 1
            ids = merged


class TextTokens:
    """A language model's text <-> model ids (data/text_tokens.h): its characters (one id per code
    point, the vocabulary's), or a BPE tokenizer's tokens (model id = len(RESERVED_TOKENS) + the
    tokenizer's id). Text is a str: bytes that are not UTF-8 come out of decode surrogate-escaped,
    so that decode(encode(text)) == text and text.encode("utf-8", "surrogateescape") gives the bytes."""

    def __init__(self, vocab, bpe=None):
        self.vocab = vocab  # config["input_vocab"]: the model's tokens by id
        self.bpe = bpe
        self.ids = {token: i for i, token in enumerate(vocab)}
        if bpe is not None and len(RESERVED_TOKENS) + len(bpe.token_bytes) != len(vocab):
            raise ValueError(f"the tokenizer's {len(bpe.token_bytes)} tokens are not the model's "
                             f"{len(vocab) - len(RESERVED_TOKENS)}")

    def encode(self, text):
        if self.bpe is not None:
            return [len(RESERVED_TOKENS) + i for i in self.bpe.encode(text)]
        unknown = sorted(set(text) - self.ids.keys())
        if unknown:
            raise ValueError(f"characters not in the model's vocabulary: {unknown}")
        return [self.ids[c] for c in text]

    def decode(self, ids):
        """Model ids -> text; reserved ids appear as their names ("<sep>")."""
        if self.bpe is None:
            return "".join(self.vocab[i] for i in ids)
        reserved = len(RESERVED_TOKENS)
        data = b"".join(self.vocab[i].encode() if i < reserved else self.bpe.decode([i - reserved]) for i in ids)
        return data.decode("utf-8", "surrogateescape")


def load_text_tokens(directory):
    """The TextTokens of an exported language model (task lm): its tokenizer.json or its characters."""
    directory = pathlib.Path(directory)
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    if config["task"] != "lm":
        raise ValueError(f"{directory} holds a model of task {config['task']}, whose tokens are not text: "
                         "use encode(config, tokens) and decode(config, ids)")
    bpe = BpeTokenizer.load(directory / config["tokenizer"]) if "tokenizer" in config else None
    return TextTokens(config["input_vocab"], bpe)
