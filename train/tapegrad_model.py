"""A tapegrad model in PyTorch: `tapegrad export RUN --format pytorch OUT` writes this file into
OUT beside model.safetensors (the state_dict, in exactly this model's names) and config.json
(the model's sizes and the run's vocabularies). Run it from OUT, or put OUT on sys.path:

    import torch, tapegrad_model
    model, config = tapegrad_model.load("OUT")               # load_state_dict(strict=True), eval mode
    ids = torch.tensor([tapegrad_model.encode(config, ["3", "1", "2", "<sep>", "<mask>", "<mask>", "<mask>"])])
    logits = model(ids)                                        # (B, T, classes)
    tapegrad_model.decode(config, logits.argmax(-1)[0].tolist())

and, after training it further in PyTorch, save it for `tapegrad import RUN FILE --out DIR`:

    tapegrad_model.save_safetensors("finetuned.safetensors", model.state_dict())

The model is tapegrad's TransformerModel (train/model.h) in torch.nn modules:
    x      = embedding(ids) + pe[:T]       <pad> (id 0) embeds to zeros; pe the sinusoidal table
    x      = encoder(x, masks)             pre-LN layers (norm_first), relu, then the final LayerNorm
    logits = head(x)                       Linear(d_model, classes)
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
import struct

import torch
from torch import nn

PAD_ID = 0  # <pad>: fills short sequences; the first of the reserved tokens every vocabulary starts with
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


class TapegradModel(nn.Module):
    def __init__(self, vocab_size, num_classes, max_len, d_model, heads, layers, ff, dropout, causal):
        super().__init__()
        self.causal = causal
        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=PAD_ID)
        self.register_buffer("pe", sinusoidal_table(max_len, d_model), persistent=False)  # not in the state_dict
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=ff, dropout=dropout, activation="relu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d_model), enable_nested_tensor=False)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, ids, padding_mask=None):
        """ids (B,T) int64, padding_mask (B,T) bool (True = pad; default ids == <pad>) -> logits (B,T,classes)"""
        T = ids.shape[1]
        if padding_mask is None:
            padding_mask = ids == PAD_ID
        causal_mask = torch.ones(T, T, dtype=torch.bool, device=ids.device).triu(1) if self.causal else None
        x = self.embedding(ids) + self.pe[:T]
        return self.head(self.encoder(x, mask=causal_mask, src_key_padding_mask=padding_mask))


def load(directory):
    """(model in eval mode, config) from an export directory."""
    directory = pathlib.Path(directory)
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    model = TapegradModel(**config["model"])
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
