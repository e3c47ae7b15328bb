"""Writes the seed corpus of fuzz_checkpoint_headers into seeds/checkpoints/ (run once; the seeds
are committed). Each seed is the target's input: a reader byte (0 GGUF, 1 safetensors, 2 index),
for the two header readers the file's size as 8 little-endian bytes, then the file's first bytes.
The GGUF seed is a two-layer Llama-shaped header (GGUF v3, from the format's public description)."""

import json
import os
import struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoints")


def gguf_string(text):
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def gguf_kv(key, kind, value):
    out = gguf_string(key) + struct.pack("<I", kind)
    if kind == 4:  # uint32
        out += struct.pack("<I", value)
    elif kind == 8:  # string
        out += gguf_string(value)
    elif kind == 9:  # array of strings
        out += struct.pack("<IQ", 8, len(value)) + b"".join(gguf_string(item) for item in value)
    return out


def gguf_seed():
    hidden, layers, ffn, vocab = 64, 2, 128, 8
    metadata = [
        ("general.architecture", 8, "llama"), ("general.file_type", 4, 2), ("llama.block_count", 4, layers),
        ("llama.embedding_length", 4, hidden), ("llama.feed_forward_length", 4, ffn),
        ("llama.attention.head_count", 4, 4), ("llama.attention.head_count_kv", 4, 2),
        ("llama.context_length", 4, 2048), ("tokenizer.ggml.tokens", 9, [f"t{i}" for i in range(vocab)]),
    ]
    # (name, dims in ggml order, type): F16 = 1 (2 bytes a weight), Q4_0 = 2 (18 bytes per 32).
    tensors = [("token_embd.weight", [hidden, vocab], 1), ("output.weight", [hidden, vocab], 1)]
    for layer in range(layers):
        for name, dims in (("attn_q", [hidden, hidden]), ("attn_k", [hidden, 32]), ("attn_v", [hidden, 32]),
                           ("attn_output", [hidden, hidden]), ("ffn_gate", [hidden, ffn]), ("ffn_up", [hidden, ffn]),
                           ("ffn_down", [ffn, hidden])):
            tensors.append((f"blk.{layer}.{name}.weight", dims, 2))
    header = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata))
    header += b"".join(gguf_kv(*entry) for entry in metadata)
    offset = 0
    for name, dims, kind in tensors:
        header += gguf_string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        header += struct.pack("<IQ", kind, offset)
        elements = dims[0] * dims[1]
        size = elements * 2 if kind == 1 else elements // 32 * 18
        offset += (size + 31) // 32 * 32
    header += b"\0" * ((-len(header)) % 32)  # the data section starts aligned
    return header, len(header) + offset


def safetensors_seed():
    entries = {"__metadata__": {"format": "pt"},
               "model.layers.0.mlp.down_proj.weight": {"dtype": "BF16", "shape": [64, 128], "data_offsets": [0, 16384]},
               "model.layers.0.mlp.up_proj.weight": {"dtype": "F8_E4M3", "shape": [128, 64], "data_offsets": [16384, 24576]},
               "model.layers.0.mlp.up_proj.weight_scale_inv": {"dtype": "F32", "shape": [1, 1], "data_offsets": [24576, 24580]}}
    text = json.dumps(entries).encode()
    return struct.pack("<Q", len(text)) + text, 8 + len(text) + 24580


def main():
    os.makedirs(HERE, exist_ok=True)
    gguf, gguf_size = gguf_seed()
    safetensors, safetensors_size = safetensors_seed()
    index = json.dumps({"metadata": {"total_size": 24580},
                        "weight_map": {"a.weight": "model-00001-of-00002.safetensors",
                                       "b.weight": "model-00002-of-00002.safetensors"}}).encode()
    seeds = {"llama.gguf": b"\0" + struct.pack("<Q", gguf_size) + gguf,
             "shard.safetensors": b"\1" + struct.pack("<Q", safetensors_size) + safetensors,
             "index.json": b"\2" + index}
    for name, data in seeds.items():
        with open(os.path.join(HERE, name), "wb") as file:
            file.write(data)
    # The plain GGUF file too, for a check through the command line (not committed).
    with open("/tmp/seed-llama.gguf", "wb") as file:
        file.write(gguf)
        file.truncate(gguf_size)


if __name__ == "__main__":
    main()
