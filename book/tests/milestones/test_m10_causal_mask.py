"""S3.3 (The causal mask): causal_check.json holds masked attention on a small example."""

from milestone import artifact, load_json, matrix, attention, max_abs_diff, short

SESSION, TITLE = "S3.3", "The causal mask"
TOLERANCE = 1e-3


def test_m10_causal_mask():
    where = "causal_check.json"
    data = load_json(artifact(where, SESSION, TITLE))
    q, k, v = matrix(data, "q", where), matrix(data, "k", where), matrix(data, "v", where)
    if len(q) < 3 or len(q[0]) < 2:
        short(f"{where}: use at least 3 positions and 2 dimensions, found q of {len(q)} x {len(q[0])}")
    if len(k) != len(q) or len(v) != len(q) or len(k[0]) != len(q[0]):
        short(f"{where}: q and k should both be [T, hd] and v [T, *], one row per position")
    weights, output = matrix(data, "weights", where), matrix(data, "output", where)
    if len(weights) != len(q) or len(weights[0]) != len(q):
        short(f"{where}: weights should be [T, T] = [{len(q)}, {len(q)}]")
    if len(output) != len(q) or len(output[0]) != len(v[0]):
        short(f"{where}: output should be [T, {len(v[0])}]")
    future = [(i, j) for i, row in enumerate(weights) for j, w in enumerate(row) if j > i and abs(w) > 1e-9]
    if future:
        i, j = future[0]
        short(f"{where}: position {i} attends to the later position {j} (weight {weights[i][j]}); mask scores above the diagonal")
    for i, row in enumerate(weights):
        if abs(sum(row) - 1) > TOLERANCE:
            short(f"{where}: row {i} of the weights sums to {sum(row):.4f}, not 1; mask the scores before the softmax")
    want_w, want_o = attention(q, k, v, causal=True)
    if (diff := max_abs_diff(weights, want_w)) > TOLERANCE:
        short(f"{where}: weights differ from the masked softmax(q kᵀ / sqrt(hd)) by up to {diff:.4f}")
    if (diff := max_abs_diff(output, want_o)) > TOLERANCE:
        short(f"{where}: output differs from weights @ v by up to {diff:.4f}")
