"""S2.4 (Encode and decode round trip): tokenizer/roundtrip.json shows texts, their ids, and a lossless decode."""

from milestone import artifact, needs, load_json, field, merges_of, bpe_vocab, bpe_encode, short

SESSION, TITLE = "S2.4", "Encode and decode round trip"


def test_m06_roundtrip():
    where = "tokenizer/roundtrip.json"
    rt = load_json(artifact(where, SESSION, TITLE))
    tok_where = "tokenizer/tokenizer.json"
    tok = load_json(needs(tok_where, "S2.3", "Train a byte-level BPE"))
    pairs = merges_of(tok, tok_where)
    vocab = bpe_vocab(pairs)
    samples = field(rt, "samples", where)
    if not isinstance(samples, list) or len(samples) < 3:
        short(f"{where}: `samples` should list at least 3 texts with their ids")
    texts = []
    for n, sample in enumerate(samples):
        if not isinstance(sample, dict) or not isinstance(sample.get("text"), str) or not isinstance(sample.get("ids"), list):
            short(f"{where}: sample {n} should be an object with a `text` string and an `ids` list")
        text, ids = sample["text"], sample["ids"]
        bad = [i for i in ids if not isinstance(i, int) or isinstance(i, bool) or i not in vocab]
        if bad:
            short(f"{where}: sample {n} uses ids outside the vocabulary: {bad[:5]}")
        decoded = b"".join(vocab[i] for i in ids)
        want = text.encode("utf-8")
        if decoded != want:
            at = next((i for i, (a, b) in enumerate(zip(decoded, want)) if a != b), min(len(decoded), len(want)))
            short(
                f"{where}: sample {n}: decoding its ids gives {len(decoded)} bytes that differ from the "
                f"text's {len(want)} from byte {at} on: {decoded[at:at + 20].decode('utf-8', 'replace')!r}"
            )
        if tok.get("pretokenize", "none") == "none":
            expected = bpe_encode(text, pairs)
            if ids != expected:
                at = next((i for i, (a, b) in enumerate(zip(ids, expected)) if a != b), min(len(ids), len(expected)))
                short(
                    f"{where}: sample {n}: your ids differ from applying the merges in training order, "
                    f"first at position {at} ({len(ids)} ids against {len(expected)})"
                )
        texts.append((text, ids))
    if all(text.isascii() for text, _ in texts):
        short(f"{where}: every sample is plain ASCII; add one with accents or emoji")
    if all(len(ids) >= len(text.encode("utf-8")) for text, ids in texts):
        short(f"{where}: no sample got shorter than its bytes; are the merges applied when encoding?")
