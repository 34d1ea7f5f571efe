//! Linear-time checks for what the SUMMARY.md parser and the renderer scan themselves.

mod book_support;

use book_support::assert_linear;
use bookside_core::{book, render};

const BASE: usize = 2_000;

#[test]
fn summary_with_many_chapters_parts_and_nesting() {
    assert_linear(
        "summary",
        |k| {
            let mut text = String::from("# Summary\n\n[Intro](intro.md)\n\n");
            for i in 0..BASE * k / 4 {
                text.push_str(&format!("# Part {i}\n- [A](a{i}.md)\n  - [B](b{i}.md)\n    - [C]()\n---\n"));
            }
            text.push_str("[End](end.md)\n");
            text
        },
        |text| {
            std::hint::black_box(book::parse_summary("src/SUMMARY.md", text));
        },
    );
}

#[test]
fn summary_pathological_lines() {
    assert_linear(
        "summary brackets",
        // Long lines (a quadratic scan of one line would show as 100x), repeated so the timing is
        // not dominated by one cache-missing pass.
        |k| {
            let n = BASE * k / 4;
            format!("- {}\n[{}](x.md)\n<!-- {}\n-->\n- [x]({})\n", "[".repeat(n), "]".repeat(n), "-".repeat(n), "(".repeat(n)).repeat(10)
        },
        |text| {
            std::hint::black_box(book::parse_summary("src/SUMMARY.md", text));
        },
    );
}

#[test]
fn render_many_headings_and_links() {
    assert_linear(
        "render",
        |k| "## Same heading\n\n[a](other.md#x) [b](https://x.org) [c](javascript:x) <b>raw</b>\n\n".repeat(BASE * k / 2),
        |text| {
            std::hint::black_box(render::chapter("part/ch.md", text));
        },
    );
}

#[test]
fn render_one_long_heading() {
    assert_linear(
        "long heading",
        |k| format!("# {}\n", "word *em* `code` [l](x.md) ".repeat(BASE * k / 2)),
        |text| {
            std::hint::black_box(render::chapter("ch.md", text));
        },
    );
}
