//! Escaping text for the formats orcs writes: XML (GraphML, SVG, HTML) and CSV fields.
//! One copy of each, so that every writer quotes the same characters the same way.

/// Escapes text for XML element content and attribute values (GraphML, SVG, HTML): the
/// five characters with a meaning in markup become entities, everything else is kept.
/// O(text).
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Quotes a CSV field when it needs it (RFC 4180): a field holding a comma, a double
/// quote or a line break (LF or CR) is put in double quotes, its quotes doubled.
/// O(field).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_become_entities_and_nothing_else_changes() {
        assert_eq!(
            xml(r#"a<b>&"c"'d'é"#),
            "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;é"
        );
        assert_eq!(xml("H00001 S0_0"), "H00001 S0_0");
        // Escaped once: an entity in the input is text, its `&` escaped.
        assert_eq!(xml("&amp;"), "&amp;amp;");
    }

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(csv_field("s1"), "s1");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("two\nlines"), "\"two\nlines\"");
        assert_eq!(csv_field("cr\r"), "\"cr\r\"");
    }
}
