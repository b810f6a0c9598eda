#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets: fuzz/corpus/<target>/, small valid and
malformed inputs (a few KB at most). Run from anywhere:

    fuzz/make_corpus.py [CHECKPOINT]

CHECKPOINT, a small checkpoint.safetensors, seeds the checkpoint target (without it that
corpus is left as it is). The committed one (21 KB) comes from

    tapegrad train --d-model 4 --heads 1 --layers 1 --ff 4 --steps 1 --batch-size 2 \
        --max-len 3 --out /tmp/tiny"""
import json
import pathlib
import struct
import sys
import zlib

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus"


def safetensors(header, data=b""):
    text = header if isinstance(header, (str, bytes)) else json.dumps(header, separators=(",", ":"))
    text = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(text)) + text + data


def entry(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


def with_checksums(tensors, metadata=None):
    """A file as tapegrad writes it: tensors back to back, each with its CRC-32 in the metadata."""
    header, data = {}, b""
    meta = dict(metadata or {})
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = entry(dtype, shape, len(data), len(data) + len(raw))
        meta["tapegrad.crc32." + name] = "%08x" % zlib.crc32(raw)
        data += raw
    return safetensors({"__metadata__": meta, **header}, data)


def write(target, files):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (folder / name).write_bytes(content if isinstance(content, bytes) else content.encode())


def safetensors_corpus():
    f32 = struct.pack("<4f", 1, -2, 0.5, 3)
    return {
        "valid_all_dtypes": with_checksums({
            "w": ("F32", [2, 2], f32),
            "d": ("F64", [], struct.pack("<d", 2.5)),
            "i": ("I64", [1], struct.pack("<q", -7)),
            "m": ("BOOL", [3], b"\x01\x00\x01"),
            "e": ("F32", [0, 3], b""),
        }, {"format": "pt"}),
        "valid_other_writer": safetensors(
            '{"b": {"dtype": "I64", "shape": [1], "data_offsets": [8, 16]}, '
            '"a": {"dtype": "F64", "shape": [], "data_offsets": [0, 8]}}   ',
            struct.pack("<d", 1.5) + struct.pack("<q", 3)),
        "empty_header": safetensors("{}"),
        "bad_checksum": safetensors({"__metadata__": {"tapegrad.crc32.w": "00000000"},
                                     "w": entry("F32", [1], 0, 4)}, b"\x00\x00\x80\x3f"),
        "overlap": safetensors({"x": entry("F32", [2], 0, 8), "y": entry("F32", [1], 4, 8)}, bytes(8)),
        "hole": safetensors({"x": entry("F32", [1], 4, 8)}, bytes(8)),
        "mismatch": safetensors({"x": entry("F32", [3], 0, 8)}, bytes(8)),
        "deep": safetensors('{"x":{"dtype":' + "[" * 40 + "]" * 40 + "}}"),
        "big_number": safetensors('{"x":{"dtype":"F32","shape":[1e400],"data_offsets":[0,4]}}', bytes(4)),
        "duplicate": safetensors('{"x":{"dtype":"F32","shape":[],"data_offsets":[0,4]},'
                                 '"x":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}', bytes(4)),
        "length_past_end": struct.pack("<Q", 1000) + b"{}",
        "short": b"\x05\x00\x00",
        "bool_byte": safetensors({"m": entry("BOOL", [2], 0, 2)}, b"\x01\x02"),
        "bad_utf8": safetensors(b'{"\xff":1}'),
    }


def labelled_corpus(fmt):
    if fmt == "tsv":
        return {
            "valid": "the cat sat\tDET NOUN VERB\na  dog\tDET NOUN\r\nthe dog ran\tDET NOUN VERB\n\n",
            "mismatch": "a b\tX\n",
            "columns": "a\tX\tY\n",
            "blank_middle": "a\tX\n\nb\tY\n",
            "utf8": "n\xc3\xa9\tX\n\xe6\x97\xa5\tY\n".encode("latin-1"),
            "bad_utf8": b"a\tX\n\xff\tY\n",
            "bom": b"\xef\xbb\xbfa b\tX Y\nb a\tY X\n",
            "reserved": "a b\tX Y\n<pad> a\t<bos> X\n",
            "long_line": "a\tX\n" + "a " * 2000 + "\t" + "X " * 2000 + "\n",
        }
    line = lambda i, o: json.dumps({"input": i, "output": o}) + "\n"
    return {
        "valid": line(["the", "cat"], ["DET", "NOUN"]) + line([1, 2.5], ["A", "B"]) + line(["x"], ["Y"]) + "\n",
        "mismatch": line(["a", "b"], ["X"]),
        "wrong_types": line(["a", None], ["X", {"k": 1}]),
        "deep": '{"input": [' + "[" * 30 + "]" * 30 + '], "output": ["X"]}\n',
        "big_number": '{"input": [1e400], "output": ["X"]}\n',
        "not_object": '["a", "X"]\n',
        "truncated": '{"input": ["a"], "output": ["X"\n',
        "duplicate_key": '{"input": ["a"], "output": ["X"], "input": ["b"]}\n',
        "number_text": '{"input": [1.0, 1e0, 1e23, -0, 18446744073709551616], "output": [1, 2, 3, 4, 5]}\n',
        "bom": b'\xef\xbb\xbf{"input": ["a"], "output": ["X"]}\n',
        "reserved": line(["<unk>", "<bos>"], ["<mask>", "X"]),
    }


def text_corpus():
    return {
        "ascii": "the cat sat on the mat. the dog ran after it.\n" * 4,
        "utf8": "né 日本 😀 ".encode() * 8,
        "short": "abc",
        "bad_utf8": b"abc\xc0\xafdef\xed\xa0\x80ghijkl\xf4\x90\x80\x80mnopqrst",
        "empty": "",
        "bom": b"\xef\xbb\xbfabcabcabc\xef\xbb\xbf",
    }


def seq2seq_corpus():
    line = lambda i, o: json.dumps({"input": i, "output": o}) + "\n"
    return {
        "valid_tsv": "12+345\t357\n9+1\t10\n\n",
        "valid_jsonl": line("12+345", "357") + line("dos", "2"),
        "missing_tab": "no tab here\n",
        "two_tabs": "a\tb\tc\n",
        "empty_side": "\tb\n",
        "not_string": line("x", 5),
        "utf8": "caf\xc3\xa9\tcoffee\n".encode("latin-1"),
        "bad_utf8": b"a\tb\n\xff\tc\n",
        "deep": '{"input": ' + "[" * 30 + "]" * 30 + ', "output": "X"}\n',
        "long_side": "a" * 1025 + "\tb\n",
        "duplicate_key": '{"input": "ab", "output": "x", "output": "y"}\n',
        "bom": b"\xef\xbb\xbfab\tba\n",
        "blank_spaces_middle": "ab\tba\n \t \ncd\tdc\n",
        "valid_lists": line(["three", "one"], ["1", "3"]) + line(["ten", 2], ["0", "1", "2"]),
        "mixed_forms": line(["three"], ["3"]) + line("two", "2"),
        "list_then_string": line(["a", "b"], "ab"),
        "empty_item": line(["a", ""], ["b"]),
        "object_item": line(["a", {"b": 1}], ["c"]),
        "reserved_item": line(["<pad>", "a"], ["b"]),
        "separator_in_item": line(["a b"], ["c"]),
        "long_token": line(["x" * 257], ["y"]),
        "words_tsv": "three  one \t1 3\n",
    }


def bpe_file_corpus():
    tok = lambda merges, specials=("<bos>",), **extra: json.dumps(
        {"format": "tapegrad-bpe", "version": 1, "merges": merges, "specials": list(specials), **extra}) + "\n"
    return {
        "valid": tok([104, 101, 256, 108, 257, 108, 258, 111]),
        "valid_no_specials": tok([32, 32, 256, 256], ()),
        "empty": tok([], ()),
        "later_id": tok([104, 257, 256, 101]),
        "twice": tok([104, 101, 104, 101]),
        "odd_count": tok([104, 101, 32]),
        "out_of_range": tok([1048576, 1]),
        "negative": tok([-1, 1]),
        "fraction": tok([1.5, 1]),
        "special_twice": tok([], ("<bos>", "<bos>")),
        "special_empty": tok([], ("",)),
        "other_format": json.dumps({"format": "gpt2", "version": 1, "merges": [], "specials": []}),
        "version_2": json.dumps({"format": "tapegrad-bpe", "version": 2, "merges": [], "specials": []}),
        "nested": '{"format": "tapegrad-bpe", "version": 1, "merges": [[104, 101]], "specials": []}',
        "deep": '{"merges": ' + "[" * 30 + "]" * 30 + "}",
        "truncated": tok([104, 101])[:30],
        "bad_utf8": b'{"format": "tapegrad-bpe", "version": 1, "merges": [], "specials": ["\xff"]}',
    }


def gemm_tuning_corpus():
    tile = lambda **edit: {"dtype": "float32", "batch": 1, "m": 2048, "n": 384, "k": 128, "a_trans": False,
                           "b_trans": True, "threads": 2, "tile": "6x64", "a_block_kib": 96, **edit}
    cache = lambda tiles, **edit: json.dumps({"format": "tapegrad gemm tuning", "version": 1, "machines": [
        {"cpu": "Intel(R) Xeon(R) Processor", "family": "avx512", "tiles": tiles}], **edit}) + "\n"
    return {
        "valid": cache([tile(), tile(dtype="float64", tile="8x24", a_trans=True)]),
        "empty": cache([]),
        "other_format": cache([], format="tapegrad-bpe"),
        "version_2": cache([], version=2),
        "negative_size": cache([tile(m=-4)]),
        "huge_size": cache([tile(k=2 ** 31)]),
        "zero_threads": cache([tile(threads=0)]),
        "bad_tile": cache([tile(tile="8y32")]),
        "zero_tile": cache([tile(tile="0x32")]),
        "bad_dtype": cache([tile(dtype="float16")]),
        "small_a_block": cache([tile(a_block_kib=8)]),
        "missing_field": cache([{"dtype": "float32"}]),
        "deep": '{"machines": ' + "[" * 30 + "]" * 30 + "}",
        "truncated": cache([tile()])[:60],
    }


def token_id_file(ids, width=2, count=None, magic=b"TGTOKIDS", version=1, sha=b"a" * 64):
    pack = "<H" if width == 2 else "<I"
    header = magic + struct.pack("<IIQ", version, width, len(ids) if count is None else count) + sha
    return header + b"".join(struct.pack(pack, i) for i in ids)


def token_id_file_corpus():
    ids = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4]
    good = token_id_file(ids)
    return {
        "valid_2_bytes": good,
        "valid_4_bytes": token_id_file(ids, width=4),
        "empty": token_id_file([]),
        "id_out_of_vocab": token_id_file(ids[:10] + [39, 40] + ids[10:]),
        "wide_id": token_id_file(ids[:5] + [70000], width=4),
        "truncated": good[:-1],
        "header_only_part": good[:50],
        "count_too_large": token_id_file(ids, count=len(ids) + 1),
        "count_overflow": token_id_file(ids, count=(1 << 63) + 10),
        "foreign_magic": token_id_file(ids, magic=b"NOTTOKID"),
        "version_2": token_id_file(ids, version=2),
        "width_3": token_id_file(ids[:3], width=3),
        "hash_not_hex": token_id_file(ids, sha=b"A" * 64),
    }


def read_safetensors(raw):
    """(tensors, metadata) of a safetensors file, the tensors {name: (dtype, shape, bytes)} in
    the header's order and the metadata without its checksums (with_checksums writes them)."""
    length = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + length])
    meta = {k: v for k, v in header.pop("__metadata__", {}).items() if not k.startswith("tapegrad.crc32.")}
    data = raw[8 + length:]
    tensors = {name: (e["dtype"], e["shape"], data[e["data_offsets"][0]:e["data_offsets"][1]])
               for name, e in header.items()}
    return tensors, meta


def strict_checkpoint_edits(good):
    """Checkpoints with valid checksums that the loader must refuse (docs/design.md, "Untrusted
    input"): a NaN weight, an int64 tensor where float32 belongs, one parameter's optimizer state
    missing, a fractional config field."""
    tensors, meta = read_safetensors(good)
    weight = next(name for name in tensors if name.startswith("model."))
    dtype, shape, raw = tensors[weight]
    nan = {**tensors, weight: (dtype, shape, struct.pack("<f", float("nan")) + raw[4:])}
    as_i64 = {**tensors, weight: ("I64", shape, b"\0" * (2 * len(raw)))}
    state = "optimizer.state." + weight[len("model."):] + "."
    missing_state = {name: t for name, t in tensors.items() if not name.startswith(state)}
    config = json.loads(meta["config"])
    config["d_model"] += 0.7
    fractional = {**meta, "config": json.dumps(config)}
    return {"nan_weight": with_checksums(nan, meta), "int64_weight": with_checksums(as_i64, meta),
            "missing_optimizer_state": with_checksums(missing_state, meta),
            "fractional_field": with_checksums(tensors, fractional)}


def checkpoint_corpus(path):
    good = pathlib.Path(path).read_bytes()
    flipped = bytearray(good)
    flipped[-3] ^= 0x01
    return {"valid": good, "bit_flip": bytes(flipped), "truncated": good[:len(good) // 2],
            **strict_checkpoint_edits(good)}


def main():
    write("safetensors", safetensors_corpus())
    write("labelled_tsv", labelled_corpus("tsv"))
    write("labelled_jsonl", labelled_corpus("jsonl"))
    write("text_corpus", text_corpus())
    write("seq2seq_pairs", seq2seq_corpus())
    write("bpe_file", bpe_file_corpus())
    write("token_id_file", token_id_file_corpus())
    write("gemm_tuning", gemm_tuning_corpus())
    if len(sys.argv) > 1:
        other = {"not_a_checkpoint": safetensors_corpus()["valid_all_dtypes"]}
        write("checkpoint", {**checkpoint_corpus(sys.argv[1]), **other})


if __name__ == "__main__":
    main()
