"""S2.3 (Train a byte-level BPE): tokenizer/tokenizer.json holds an ordered list of valid merges."""

from milestone import MYLLM, artifact, load_json, integer, merges_of, short

SESSION, TITLE = "S2.3", "Train a byte-level BPE"
MIN_VOCAB = 512  # fewer than 256 merges barely compresses (tokenization.md)


def test_m05_bpe_merges():
    where = "tokenizer/tokenizer.json"
    tok = load_json(artifact(where, SESSION, TITLE))
    vocab_size = integer(tok, "vocab_size", where)
    pairs = merges_of(tok, where)
    if len(set(pairs)) != len(pairs):
        dup = next(p for i, p in enumerate(pairs) if p in pairs[:i])
        short(f"{where}: the pair {list(dup)} is merged twice; a merged pair disappears from the text")
    if vocab_size != 256 + len(pairs):
        short(f"{where}: vocab_size is {vocab_size} but 256 bytes + {len(pairs)} merges make {256 + len(pairs)}")
    if vocab_size < MIN_VOCAB:
        short(f"{where}: only {len(pairs)} merges; train until the vocabulary has at least {MIN_VOCAB} tokens")
    cfg_path = MYLLM / "config.json"
    if cfg_path.exists():
        cfg = load_json(cfg_path)
        if cfg.get("vocab_size") != vocab_size:
            short(f"{where}: vocab_size is {vocab_size} but config.json says {cfg.get('vocab_size')}; make them agree")
