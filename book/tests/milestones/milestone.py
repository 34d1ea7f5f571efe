"""Helpers for the milestone tests: find, load and check the artifacts in checkpoints/myllm/.

Every check compares your numbers with numbers recomputed from your own files, using the
formulas in the book. Nothing here holds an answer to copy.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MYLLM = ROOT / "checkpoints" / "myllm"


def artifact(rel: str, session: str, title: str) -> Path:
    """The path of this milestone's artifact; skips the test when it does not exist yet."""
    path = MYLLM / rel
    if not path.exists():
        pytest.skip(f"run session {session} ({title}) to create checkpoints/myllm/{rel}")
    return path


def short(message: str) -> None:
    """Fail with a message that says what is short, without a Python traceback."""
    pytest.fail(message, pytrace=False)


def needs(rel: str, session: str, title: str) -> Path:
    """Another session's artifact this milestone builds on; missing means this one is short."""
    path = MYLLM / rel
    if not path.exists():
        short(f"checkpoints/myllm/{rel} is missing: finish session {session} ({title}) first")
    return path


def load_json(path: Path) -> dict:
    rel = path.relative_to(MYLLM).as_posix()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        short(f"checkpoints/myllm/{rel} is not valid JSON: {err}")
    if not isinstance(data, dict):
        short(f"checkpoints/myllm/{rel} should hold a JSON object {{...}}")
    return data


def field(data: dict, key: str, where: str):
    if key not in data:
        short(f"{where}: the field `{key}` is missing")
    return data[key]


def number(data: dict, key: str, where: str, *, positive: bool = False) -> float:
    value = field(data, key, where)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        short(f"{where}: `{key}` should be a finite number, found {value!r}")
    if positive and value <= 0:
        short(f"{where}: `{key}` should be positive, found {value!r}")
    return value


def integer(data: dict, key: str, where: str, *, positive: bool = True) -> int:
    value = field(data, key, where)
    if isinstance(value, bool) or not isinstance(value, int):
        short(f"{where}: `{key}` should be a whole number, found {value!r}")
    if positive and value <= 0:
        short(f"{where}: `{key}` should be positive, found {value!r}")
    return value


def numbers(data: dict, key: str, where: str, *, min_len: int = 1) -> list:
    value = field(data, key, where)
    if not isinstance(value, list) or not all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in value
    ):
        short(f"{where}: `{key}` should be a list of numbers")
    if not all(math.isfinite(x) for x in value):
        short(f"{where}: `{key}` holds a NaN or infinite value")
    if len(value) < min_len:
        short(f"{where}: `{key}` has {len(value)} values, at least {min_len} are needed")
    return value


def matrix(data: dict, key: str, where: str) -> list:
    value = field(data, key, where)
    ok = (
        isinstance(value, list)
        and value
        and all(isinstance(row, list) and row for row in value)
        and all(isinstance(x, (int, float)) and not isinstance(x, bool) for row in value for x in row)
        and len({len(row) for row in value}) == 1
    )
    if not ok:
        short(f"{where}: `{key}` should be a list of rows of numbers, all rows the same length")
    return value


def agrees(stated: float, actual: float, rel_tol: float, what: str, where: str) -> None:
    """Your figure `stated` must match the recomputed `actual` within `rel_tol` (relative)."""
    if not math.isclose(stated, actual, rel_tol=rel_tol, abs_tol=1e-12):
        short(f"{where}: {what} is {show(stated)} but recomputes to {show(actual)} from your own numbers")


def show(x: float) -> str:
    """Whole numbers with thousands separators, others to six significant digits."""
    if float(x).is_integer() and abs(x) >= 1000:
        return f"{int(x):,}"
    return f"{x:.6g}"


def config() -> dict:
    """The model config of session S1.2, checked enough to compute with."""
    cfg = load_json(needs("config.json", "S1.2", "Model config on paper"))
    where = "config.json"
    for key in ("vocab_size", "d_model", "n_layers", "n_heads", "n_kv_heads", "d_ff", "context_length"):
        integer(cfg, key, where)
    if cfg["d_model"] % cfg["n_heads"]:
        short(f"{where}: n_heads ({cfg['n_heads']}) must divide d_model ({cfg['d_model']})")
    if cfg["n_heads"] % cfg["n_kv_heads"]:
        short(f"{where}: n_kv_heads ({cfg['n_kv_heads']}) must divide n_heads ({cfg['n_heads']})")
    return cfg


def param_count(cfg: dict) -> int:
    """The book's parameter count (parameters.md, 'Where the parameters live')."""
    v, d, layers = cfg["vocab_size"], cfg["d_model"], cfg["n_layers"]
    hd = d // cfg["n_heads"]
    per_layer = 2 * d * d + 2 * d * cfg["n_kv_heads"] * hd + 2 * d * cfg["d_ff"] + 2 * d
    total = v * d + layers * per_layer + d
    if not cfg.get("tied_embeddings", True):
        total += v * d
    if cfg.get("positional", "rope") == "learned":
        total += cfg["context_length"] * d
    return total


def softmax(row: list) -> list:
    finite = [x for x in row if x != -math.inf]
    top = max(finite)
    exps = [0.0 if x == -math.inf else math.exp(x - top) for x in row]
    total = sum(exps)
    return [e / total for e in exps]


def attention(q: list, k: list, v: list, causal: bool) -> tuple[list, list]:
    """softmax(q kᵀ / sqrt(hd)) v for one head, optionally with the causal mask."""
    hd = len(q[0])
    weights = []
    for i, qi in enumerate(q):
        scores = [
            -math.inf if causal and j > i else sum(a * b for a, b in zip(qi, kj)) / math.sqrt(hd)
            for j, kj in enumerate(k)
        ]
        weights.append(softmax(scores))
    out = [[sum(w * vj[c] for w, vj in zip(row, v)) for c in range(len(v[0]))] for row in weights]
    return weights, out


def max_abs_diff(a: list, b: list) -> float:
    return max(abs(x - y) for ra, rb in zip(a, b) for x, y in zip(ra, rb))


def merges_of(tok: dict, where: str) -> list:
    """The ordered merge list of a tokenizer.json: merge i turns the pair (a, b) into id 256 + i."""
    merges = field(tok, "merges", where)
    if not isinstance(merges, list):
        short(f"{where}: `merges` should be a list of [a, b] pairs")
    pairs = []
    for i, pair in enumerate(merges):
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in pair)
        ):
            short(f"{where}: merge {i} should be a pair of ids [a, b], found {pair!r}")
        a, b = pair
        if not (0 <= a < 256 + i and 0 <= b < 256 + i):
            short(
                f"{where}: merge {i} {pair} refers to an id that does not exist yet; "
                f"merge {i} creates id {256 + i}, so its parts must be below that"
            )
        pairs.append((a, b))
    return pairs


def bpe_vocab(pairs: list) -> dict:
    vocab = {i: bytes([i]) for i in range(256)}
    for i, (a, b) in enumerate(pairs):
        vocab[256 + i] = vocab[a] + vocab[b]
    return vocab


def bpe_encode(text: str, pairs: list) -> list:
    """Apply merges in training order: always merge the known pair with the lowest merge id."""
    rank = {pair: 256 + i for i, pair in enumerate(pairs)}
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        best = min(set(zip(ids, ids[1:])), key=lambda p: rank.get(p, math.inf))
        if best not in rank:
            break
        new, out, i = rank[best], [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == best:
                out.append(new)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return ids
