"""S2.5 (Tokenise the corpus): data/tokens.json counts the tokens of both splits."""

from milestone import artifact, needs, load_json, integer, number, agrees, short

SESSION, TITLE = "S2.5", "Tokenise the corpus"


def test_m07_token_counts():
    where = "data/tokens.json"
    tokens = load_json(artifact(where, SESSION, TITLE))
    split = load_json(needs("data/split.json", "S2.2", "Corpus and a clean split"))
    train_tokens, val_tokens = integer(tokens, "train_tokens", where), integer(tokens, "val_tokens", where)
    train_bytes = integer(split, "train_bytes", "data/split.json")
    val_bytes = integer(split, "val_bytes", "data/split.json")
    train_bpt = train_bytes / train_tokens
    agrees(number(tokens, "bytes_per_token", where, positive=True), train_bpt, 0.01, "bytes_per_token", where)
    if train_bpt <= 1.5:
        short(f"{where}: the tokenizer barely compresses ({train_bpt:.2f} bytes per token); 1.5 or more is expected")
    val_bpt = val_bytes / val_tokens
    if abs(val_bpt - train_bpt) > 0.2 * train_bpt:
        short(
            f"{where}: validation compresses at {val_bpt:.2f} bytes per token against {train_bpt:.2f} "
            "for training; the tokenizer has memorised its training text"
        )
