//! Text into HTML: everything a server said is hostile, so every piece of text the
//! page shows goes through [`text`], and nothing is ever put in a tag unescaped.

/// `text` safe in HTML element content and in a quoted attribute value. Control
/// characters other than newline and tab become U+FFFD, so a NUL or an escape
/// sequence cannot confuse a reader or a parser.
pub(crate) fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn markup_from_a_server_stays_text() {
        assert_eq!(
            super::text("</pre><script>alert('x')</script>&amp;\"\u{0}"),
            "&lt;/pre&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;amp;&quot;\u{fffd}"
        );
    }
}
