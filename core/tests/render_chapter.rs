//! Chapter rendering: mdBook's anchors, rewritten links, escaped raw HTML, and the extensions.

use bookside_core::render;
use expect_test::{Expect, expect};

fn html(path: &str, markdown: &str, expect: Expect) {
    expect.assert_eq(&render::chapter(path, markdown).html);
}

fn ids(markdown: &str) -> Vec<String> {
    let rendered = render::chapter("ch.md", markdown);
    let ids: Vec<String> = rendered.headings.iter().map(|h| h.id.clone()).collect();
    // The id list without rendering must agree with the one rendering produced.
    assert_eq!(render::headings(markdown), rendered.headings);
    ids
}

#[test]
fn heading_ids_match_mdbook() {
    // Expected values follow mdbook-html 0.5's `id_from_content` over the heading's text with tags
    // removed (smart punctuation on, as mdBook's default): trimmed, lowercased (Unicode too),
    // letters, digits, `-` and `_` kept, whitespace to `-`, the rest dropped.
    let cases = [
        ("## What the cache stores", "what-the-cache-stores"),
        ("## What's *new* in v2.0?", "whats-new-in-v20"),
        ("## `head_dim` & friends", "head_dim--friends"),
        ("## Über Ümlaut — ÄÖ", "über-ümlaut--äö"),
        ("## a -- b ... c", "a--b--c"),
        ("## # Lead", "-lead"),
        ("## C++ <templates>", "c"),
        ("## #hashtag topic", "hashtag-topic"),
        ("## See [the docs](x.md)", "see-the-docs"),
        ("## Done ✅", "done-"),
        ("## 1.2 Scaling laws", "12-scaling-laws"),
        ("## Q&amp;A", "qa"),
        ("## Tom's \"quotes\"", "toms-quotes"),
        ("## snake_case and kebab-case", "snake_case-and-kebab-case"),
        ("## Custom {#my-id}", "my-id"),
        ("Setext heading\nover two lines\n---", "setext-heading-over-two-lines"),
        ("## MQA and GQA ##", "mqa-and-gqa"),
    ];
    for (markdown, expected) in cases {
        assert_eq!(ids(markdown), vec![expected.to_owned()], "heading {markdown:?}");
    }
}

#[test]
fn repeated_headings_get_numbered_ids() {
    assert_eq!(ids("# Example\n## Example\n### Example\n## Other\n## example"), vec!["example", "example-1", "example-2", "other", "example-3"]);
    // A suffixed id already taken by a heading of that name is skipped, as mdBook does.
    assert_eq!(ids("## a\n## a-1\n## a\n## a"), vec!["a", "a-1", "a-2", "a-3"]);
    // An explicit id is used as written and does not take a number from the others.
    assert_eq!(ids("## A {#a}\n## A\n## A"), vec!["a", "a", "a-1"]);
}

#[test]
fn headings_carry_a_self_link() {
    html("ch.md", "## The *cache*", expect![[r##"
        <h2 id="the-cache"><a class="header" href="#the-cache">The <em>cache</em></a></h2>
    "##]]);
}

#[test]
fn heading_attributes_other_than_id_and_class_are_dropped() {
    html("ch.md", "## Hi {#x .note onclick=alert(1) style=color:red}", expect![[r##"
        <h2 id="x" class="note"><a class="header" href="#x">Hi</a></h2>
    "##]]);
}

#[test]
fn chapter_links_become_app_routes() {
    html(
        "part/ch.md",
        "[a](kv-cache.md#what-the-cache-stores) [b](../intro.md) [c](#local) [d](./sub/x.md?q=1#y) [e](img/fig.png) [f](<my chapter.md>)",
        expect![[r##"
            <p><a href="/book/part/kv-cache#what-the-cache-stores">a</a> <a href="/book/intro">b</a> <a href="#local">c</a> <a href="/book/part/sub/x?q=1#y">d</a> <a href="/book/part/img/fig.png">e</a> <a href="/book/part/my%20chapter">f</a></p>
        "##]],
    );
}

#[test]
fn external_links_are_kept_with_noopener() {
    html(
        "ch.md",
        "[paper](https://arxiv.org/abs/1706.03762 \"Attention\") <https://example.org/a?b=1&c=2> <me@example.org>",
        expect![[r#"
            <p><a href="https://arxiv.org/abs/1706.03762" title="Attention" rel="noopener">paper</a> <a href="https://example.org/a?b=1&amp;c=2" rel="noopener">https://example.org/a?b=1&amp;c=2</a> <a href="mailto:me@example.org" rel="noopener">me@example.org</a></p>
        "#]],
    );
}

#[test]
fn unsafe_schemes_are_neutralised() {
    html(
        "ch.md",
        "[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) [c](data:text/html,x) [d](vbscript:x) [e](<java\tscript:alert(1)>) ![f](javascript:alert(1))",
        expect![[r##"
            <p><a href="#">a</a> <a href="#">b</a> <a href="#">c</a> <a href="#">d</a> <a href="#">e</a> <img src="" alt="f" /></p>
        "##]],
    );
}

#[test]
fn raw_html_is_escaped_not_interpreted() {
    html(
        "ch.md",
        "<script>alert(1)</script>\n\nText <img src=x onerror=alert(1)> and <a href=\"javascript:alert(1)\">x</a>.\n\n<div class=\"warning\">\n\n**hi**\n\n</div>\n",
        expect![[r##"
            <p class="raw-html">&lt;script&gt;alert(1)&lt;/script&gt;
            </p>
            <p>Text &lt;img src=x onerror=alert(1)&gt; and &lt;a href="javascript:alert(1)"&gt;x&lt;/a&gt;.</p>
            <p class="raw-html">&lt;div class="warning"&gt;
            </p>
            <p><strong>hi</strong></p>
            <p class="raw-html">&lt;/div&gt;
            </p>
        "##]],
    );
}

#[test]
fn hostile_input_never_yields_markup() {
    let hostile = "<script>x</script>\n<iframe src=x></iframe>\n\n# <svg onload=alert(1)>\n\n[x](javascript:alert(1))\n\n`<b>`\n\n<!-- comment -->\n\n<style>*{}</style>";
    let out = render::chapter("ch.md", hostile).html;
    for bad in ["<script", "<iframe", "<svg", "<style", "<!--", "javascript:", "<b>"] {
        assert!(!out.contains(bad), "{bad} leaked into {out}");
    }
}

#[test]
fn code_blocks_keep_their_language_class() {
    html("ch.md", "```python\nprint(\"<hi>\")\n```\n\n    indented\n", expect![[r##"
        <pre><code class="language-python">print("&lt;hi&gt;")
        </code></pre>
        <pre><code>indented
        </code></pre>
    "##]]);
}

#[test]
fn footnotes_tables_task_lists_and_strikethrough() {
    html(
        "ch.md",
        "Cache[^kv] is ~~free~~ costly.\n\n[^kv]: Keys and values.\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n",
        expect![[r##"
            <p>Cache<sup class="footnote-reference"><a href="#kv">1</a></sup> is <del>free</del> costly.</p>
            <div class="footnote-definition" id="kv"><sup class="footnote-definition-label">1</sup>
            <p>Keys and values.</p>
            </div>
            <table><thead><tr><th>a</th><th style="text-align: center">b</th></tr></thead><tbody>
            <tr><td>1</td><td style="text-align: center">2</td></tr>
            </tbody></table>
            <ul>
            <li><input disabled="" type="checkbox" checked=""/>
            done</li>
            <li><input disabled="" type="checkbox"/>
            todo</li>
            </ul>
        "##]],
    );
}

#[test]
fn extensions_outside_mdbooks_set_stay_off() {
    // Math, superscript and wiki links stay off; smart punctuation, definition lists and GFM
    // alerts are on, as in mdBook 0.5.
    html("ch.md", "$x$ \"quoted\" ^sup^ [[wiki]]\n\nterm\n: definition\n\n> [!NOTE]\n> careful\n", expect![[r##"
        <p>$x$ “quoted” ^sup^ [[wiki]]</p>
        <dl>
        <dt id="term"><a class="header" href="#term">term</a></dt>
        <dd>definition</dd>
        </dl>
        <blockquote class="markdown-alert-note">
        <p>careful</p>
        </blockquote>
    "##]]);
}

#[test]
fn definition_terms_are_anchored_and_share_the_id_counter() {
    let md = "## Term\n\nTerm\n: the first\n\n## Term\n";
    html("ch.md", md, expect![[r##"
        <h2 id="term"><a class="header" href="#term">Term</a></h2>
        <dl>
        <dt id="term-1"><a class="header" href="#term-1">Term</a></dt>
        <dd>the first</dd>
        </dl>
        <h2 id="term-2"><a class="header" href="#term-2">Term</a></h2>
    "##]]);
    assert_eq!(render::headings(md).iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["term", "term-2"]);
}

#[test]
fn plain_text_for_search() {
    let text = render::plain_text("# Title\n\nSome *emphasis* and `code`.\n\n- one\n- two\n\n```\nlet x = 1;\n```\n\n<b>raw</b>\n");
    expect![[r#"
        Title
        Some emphasis and code.
        one
        two
        let x = 1;
        raw
    "#]]
    .assert_eq(&text);
}

#[test]
fn routes() {
    assert_eq!(render::route("kv-cache.md"), "/book/kv-cache");
    assert_eq!(render::route("part/x.md"), "/book/part/x");
}
