"""S3.6 (Full forward pass and the loss at init): forward_check.json records one untrained forward pass."""

import math

from milestone import MYLLM, artifact, load_json, field, integer, number, short

SESSION, TITLE = "S3.6", "Full forward pass and the loss at init"


def test_m13_forward_init_loss():
    where = "forward_check.json"
    data = load_json(artifact(where, SESSION, TITLE))
    b, t, v = integer(data, "batch", where), integer(data, "seq_len", where), integer(data, "vocab_size", where)
    if (MYLLM / "config.json").exists():
        cfg_v = load_json(MYLLM / "config.json").get("vocab_size")
        if cfg_v != v:
            short(f"{where}: vocab_size is {v} but config.json says {cfg_v}")
    shape = field(data, "logits_shape", where)
    if shape != [b, t, v]:
        short(f"{where}: logits_shape is {shape}; batch, seq_len and vocab_size give {[b, t, v]}")
    loss = number(data, "init_loss", where, positive=True)
    uniform = math.log(v)
    if abs(loss - uniform) > 0.10 * uniform:
        short(
            f"{where}: init_loss is {loss} but an untrained model should score near ln V = {uniform:.3f}; "
            "too high means a large init, too low means the targets leak"
        )
