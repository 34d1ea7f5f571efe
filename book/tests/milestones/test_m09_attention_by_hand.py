"""S3.2 (Attention by hand): attention_check.json holds one head's attention on a small example."""

from milestone import artifact, load_json, matrix, attention, max_abs_diff, short

SESSION, TITLE = "S3.2", "Attention by hand"
TOLERANCE = 1e-3


def test_m09_attention_by_hand():
    where = "attention_check.json"
    data = load_json(artifact(where, SESSION, TITLE))
    q, k, v = matrix(data, "q", where), matrix(data, "k", where), matrix(data, "v", where)
    if len(q) < 3 or len(q[0]) < 2:
        short(f"{where}: use at least 3 positions and 2 dimensions, found q of {len(q)} x {len(q[0])}")
    if len(k) != len(q) or len(v) != len(q) or len(k[0]) != len(q[0]):
        short(f"{where}: q and k should both be [T, hd] and v [T, *], one row per position")
    weights, output = matrix(data, "weights", where), matrix(data, "output", where)
    want_w, want_o = attention(q, k, v, causal=False)
    if len(weights) != len(q) or len(weights[0]) != len(k):
        short(f"{where}: weights should be [T, T] = [{len(q)}, {len(k)}]")
    if len(output) != len(q) or len(output[0]) != len(v[0]):
        short(f"{where}: output should be [T, {len(v[0])}]")
    if (diff := max_abs_diff(weights, want_w)) > TOLERANCE:
        short(f"{where}: weights differ from softmax(q kᵀ / sqrt(hd)) by up to {diff:.4f}; check the scale and the softmax axis")
    if (diff := max_abs_diff(output, want_o)) > TOLERANCE:
        short(f"{where}: output differs from weights @ v by up to {diff:.4f}")
