//! Unit tests of the dot reader.

use super::lexer::CHUNK;
use super::*;
use std::io::{BufReader, Read};

fn parse(text: &str) -> DotGraph {
    match parse_dot_str(text) {
        Ok(g) => g,
        Err(e) => panic!("unexpected error {e} for input:\n{text}"),
    }
}

fn error(text: &str) -> LocatedError {
    match parse_dot_str(text) {
        Ok(g) => panic!("expected an error, parsed {g:?} from:\n{text}"),
        Err(e) => e,
    }
}

/// Asserts the error is on `line` and its message contains every fragment.
fn assert_error(text: &str, line: u32, fragments: &[&str]) {
    let e = error(text);
    assert_eq!(e.line, Some(line), "wrong line in `{e}` for:\n{text}");
    for f in fragments {
        assert!(e.message.contains(f), "`{e}` lacks `{f}` for:\n{text}");
    }
    let message = e.message.clone();
    assert_eq!(
        e.in_file("f.dot").to_string(),
        format!("f.dot:{line}: {message}")
    );
}

fn node_names(g: &DotGraph) -> Vec<&str> {
    (0..g.nodes.len() as u32).map(|n| g.node_name(n)).collect()
}

fn edge_pairs(g: &DotGraph) -> Vec<(&str, &str)> {
    g.edges
        .iter()
        .map(|e| (g.node_name(e.tail), g.node_name(e.head)))
        .collect()
}

fn tokens<'a>(g: &'a DotGraph, e: &DotEdge) -> Vec<&'a str> {
    g.comment_tokens(e)
        .iter()
        .map(|&s| g.symbols.name(s))
        .collect()
}

fn attrs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|&(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

const SAMPLE: &str = "digraph network {
\tH00000 -> S0_0\t[key=1,
\t\tcomment=\"*\"];
\tS0_0 -> H00000\t[key=1,
\t\tcomment=H00000];
\tS0_0 -> S1_0\t[key=5,
\t\tcomment=\"H00004, H00008, H00012\"];
}
";

#[test]
fn symbol_table_interns() {
    let mut t = SymbolTable::new();
    assert!(t.is_empty());
    assert_eq!(t.intern("a"), 0);
    assert_eq!(t.intern("b"), 1);
    assert_eq!(t.intern("a"), 0);
    assert_eq!(t.get("b"), Some(1));
    assert_eq!(t.get("c"), None);
    assert_eq!(t.name(1), "b");
    assert_eq!(t.len(), 2);
    assert!(!t.is_empty());
}

#[test]
fn parses_orcs_sample() {
    let g = parse(SAMPLE);
    assert!(!g.strict);
    assert_eq!(g.id.as_deref(), Some("network"));
    assert_eq!(node_names(&g), ["H00000", "S0_0", "S1_0"]);
    assert_eq!(node_names(&g).len(), g.nodes.len());
    assert_eq!(
        g.nodes.iter().map(|n| n.line).collect::<Vec<_>>(),
        [2, 2, 6]
    );
    assert_eq!(
        edge_pairs(&g),
        [("H00000", "S0_0"), ("S0_0", "H00000"), ("S0_0", "S1_0")]
    );
    let e = &g.edges;
    assert_eq!(e.iter().map(|e| e.line).collect::<Vec<_>>(), [2, 4, 6]);
    assert_eq!(e[0].key.as_deref(), Some("1"));
    assert_eq!(e[2].key.as_deref(), Some("5"));
    assert_eq!(e[0].comment, Comment::All);
    assert!(g.comment_tokens(&e[0]).is_empty());
    assert_eq!(tokens(&g, &e[1]), ["H00000"]);
    assert_eq!(tokens(&g, &e[2]), ["H00004", "H00008", "H00012"]);
    assert!(e.iter().all(|e| e.attrs.is_empty()));
    assert!(g.comment_declared);
    // Node names and comment tokens share the symbol table.
    assert_eq!(g.comment_tokens(&e[1]), [g.nodes[0].symbol]);
    assert_eq!(g.symbols.len(), 3 + 3);
}

#[test]
fn node_order_is_first_mention() {
    let g = parse("digraph { SA; SB; H0 -> SB; H0 -> SA; }");
    assert_eq!(node_names(&g), ["SA", "SB", "H0"]);
    let g = parse("digraph { x -> y; z; y -> w -> x }");
    assert_eq!(node_names(&g), ["x", "y", "z", "w"]);
    assert!(!g.comment_declared);
    assert!(g.edges.iter().all(|e| e.comment == Comment::Absent));
}

#[test]
fn chains_make_one_edge_per_arrow() {
    let g = parse("digraph {\n a -> b\n -> c [key=k, comment=\"x y\"]\n}");
    assert_eq!(edge_pairs(&g), [("a", "b"), ("b", "c")]);
    assert_eq!(g.edges[0].line, 2);
    assert_eq!(g.edges[1].line, 3);
    for e in &g.edges {
        assert_eq!(e.key.as_deref(), Some("k"));
        assert_eq!(tokens(&g, e), ["x", "y"]);
    }
    // Both edges share one tokenization.
    assert_eq!(g.comment_tokens.len(), 2);
}

#[test]
fn subgraph_operands() {
    let g = parse("digraph { a -> {b c}; {d e} -> f; {a b} -> {c d} }");
    assert_eq!(
        edge_pairs(&g),
        [
            ("a", "b"),
            ("a", "c"),
            ("d", "f"),
            ("e", "f"),
            ("a", "c"),
            ("a", "d"),
            ("b", "c"),
            ("b", "d")
        ]
    );
    assert_eq!(node_names(&g), ["a", "b", "c", "d", "e", "f"]);
    let g = parse("digraph {\n x -> subgraph s1\n {\n y z } -> subgraph {w}\n}");
    assert_eq!(
        edge_pairs(&g),
        [("x", "y"), ("x", "z"), ("y", "w"), ("z", "w")]
    );
    // A subgraph head's edges take the line of its opening brace.
    assert_eq!(
        g.edges.iter().map(|e| e.line).collect::<Vec<_>>(),
        [3, 3, 4, 4]
    );
}

#[test]
fn subgraph_operand_nodes_follow_node_order() {
    // Graphviz walks a subgraph's nodes in creation order, not mention order.
    let g = parse("digraph { y; x; a -> {x y} }");
    assert_eq!(edge_pairs(&g), [("a", "y"), ("a", "x")]);
    // Nested subgraphs contribute their nodes; duplicates count once.
    let g = parse("digraph { a -> { b { c b } subgraph { d } c } }");
    assert_eq!(edge_pairs(&g), [("a", "b"), ("a", "c"), ("a", "d")]);
}

#[test]
fn edges_inside_subgraph_operands_come_first() {
    let g = parse("digraph { a -> { b -> c } }");
    assert_eq!(edge_pairs(&g), [("b", "c"), ("a", "b"), ("a", "c")]);
    assert_eq!(node_names(&g), ["a", "b", "c"]);
}

#[test]
fn attribute_statements_and_lists() {
    let g = parse(
        "digraph G { graph [rankdir=LR, size=\"4,4\"]; ratio = fill\n\
         node [shape=box]; a [color=red; label=x] [style=bold dir]\n\
         a -> b [weight=2 penwidth=1; arrowhead=none, comment=\"c\"]\n\
         graph [rankdir=TB] }",
    );
    assert_eq!(
        g.graph_attrs,
        attrs(&[("rankdir", "TB"), ("size", "4,4"), ("ratio", "fill")])
    );
    assert_eq!(
        g.nodes[0].attrs,
        attrs(&[
            ("shape", "box"),
            ("color", "red"),
            ("label", "x"),
            ("style", "bold"),
            ("dir", "true")
        ])
    );
    assert_eq!(g.nodes[1].attrs, attrs(&[("shape", "box")]));
    assert_eq!(
        g.edges[0].attrs,
        attrs(&[("weight", "2"), ("penwidth", "1"), ("arrowhead", "none")])
    );
    assert_eq!(g.edges[0].key, None);
    assert_eq!(tokens(&g, &g.edges[0]), ["c"]);
    let g = parse("digraph { a [] ; b [ ] [x=1,] }");
    assert!(g.nodes[0].attrs.is_empty());
    assert_eq!(g.nodes[1].attrs, attrs(&[("x", "1")]));
}

#[test]
fn defaults_are_scoped_to_subgraphs() {
    let g = parse(
        "digraph {
           edge [comment=\"top\", color=blue]
           a -> b
           subgraph s {
             edge [comment=\"inner\" key=7] node [shape=box]
             c -> d [color=red]
             { edge [comment=\"*\"] e -> f }
             g -> h
           }
           i -> j [comment=own]
           edge [color=green]
           k -> l
           node [shape=circle]
           c
           m
         }",
    );
    let summary: Vec<_> = g
        .edges
        .iter()
        .map(|e| {
            (
                format!("{}->{}", g.node_name(e.tail), g.node_name(e.head)),
                match e.comment {
                    Comment::All => "*".to_string(),
                    _ => tokens(&g, e).join(","),
                },
                e.key.clone(),
                e.attrs.clone(),
            )
        })
        .collect();
    let blue = attrs(&[("color", "blue")]);
    assert_eq!(
        summary,
        [
            ("a->b".into(), "top".into(), None, blue.clone()),
            (
                "c->d".into(),
                "inner".into(),
                Some("7".into()),
                attrs(&[("color", "red")])
            ),
            ("e->f".into(), "*".into(), Some("7".into()), blue.clone()),
            (
                "g->h".into(),
                "inner".into(),
                Some("7".into()),
                blue.clone()
            ),
            ("i->j".into(), "own".into(), None, blue),
            (
                "k->l".into(),
                "top".into(),
                None,
                attrs(&[("color", "green")])
            ),
        ]
    );
    let shape = |name: &str| {
        let i = node_names(&g).iter().position(|n| *n == name).unwrap();
        g.nodes[i].attrs.clone()
    };
    assert_eq!(shape("a"), []);
    assert_eq!(shape("c"), attrs(&[("shape", "box")]));
    assert_eq!(shape("f"), attrs(&[("shape", "box")]));
    assert_eq!(shape("i"), []);
    // Node defaults apply only when a node is created.
    assert_eq!(shape("m"), attrs(&[("shape", "circle")]));
    assert!(g.comment_declared);
}

#[test]
fn own_attributes_override_defaults_in_place() {
    let g = parse("digraph { edge [a=1, b=2, comment=x] p -> q [b=3, c=4, a=5] }");
    let e = &g.edges[0];
    assert_eq!(e.attrs, attrs(&[("a", "5"), ("b", "3"), ("c", "4")]));
    assert_eq!(tokens(&g, e), ["x"]);
}

#[test]
fn ports_are_ignored() {
    let g = parse("digraph { a:p1 -> b:p2:ne; c:sw [x=1]; \"d\":\"p\" -> a }");
    assert_eq!(node_names(&g), ["a", "b", "c", "d"]);
    assert_eq!(edge_pairs(&g), [("a", "b"), ("d", "a")]);
    assert_eq!(g.nodes[2].attrs, attrs(&[("x", "1")]));
}

#[test]
fn id_forms() {
    let g = parse(
        "digraph { -1.5 -> .5 -> 1. -> 42 -> _x9 -> \"q x\" -> <b<i>t</i>> -> é_1; \
         \"42\" }",
    );
    assert_eq!(
        node_names(&g),
        ["-1.5", ".5", "1.", "42", "_x9", "q x", "b<i>t</i>", "é_1"]
    );
}

#[test]
fn keywords_are_case_insensitive_ids_are_not() {
    let g = parse("STRICT DiGraph { NODE [s=1] Edge [e=2] a -> A; SubGraph { b } \"node\" }");
    assert!(g.strict);
    assert_eq!(node_names(&g), ["a", "A", "b", "node"]);
    assert_eq!(g.edges[0].attrs, attrs(&[("e", "2")]));
    assert_eq!(g.nodes[0].attrs, attrs(&[("s", "1")]));
}

#[test]
fn quoted_string_escapes() {
    let g = parse(
        "digraph { \"a\\\"b\" -> \"c\\\\\" -> \"d\\le\" -> \"multi\nline\" -> \"cont\\\ninued\" -> \"crlf\\\r\nx\" }",
    );
    assert_eq!(
        node_names(&g),
        [
            "a\"b",
            "c\\\\",
            "d\\le",
            "multi\nline",
            "continued",
            "crlfx"
        ]
    );
    // Line numbers count the line breaks inside strings, continued or not.
    let g = parse("digraph {\n\"a\nb\" -> \"c\\\nd\" -> e\n}");
    assert_eq!(g.edges[0].line, 3);
    assert_eq!(g.edges[1].line, 4);
}

#[test]
fn continuation_lines_in_comments() {
    let g = parse("digraph {\n a -> b [comment=\"H1, H2, \\\nH3, H4\\\r\n5\"];\n c -> d\n}");
    assert_eq!(tokens(&g, &g.edges[0]), ["H1", "H2", "H3", "H45"]);
    assert_eq!(g.edges[1].line, 5);
}

#[test]
fn plus_concatenates_quoted_strings() {
    let g = parse(
        "digraph { a -> b [comment=\"H1, H\" + \"2\" /* c */ +\n // x\n \"3, H4\"] \"x\"+\"y\" }",
    );
    assert_eq!(tokens(&g, &g.edges[0]), ["H1", "H23", "H4"]);
    assert_eq!(node_names(&g), ["a", "b", "xy"]);
    assert_error(
        "digraph { a -> \"b\" + c }",
        1,
        &["expected a quoted string after `+`", "`c`"],
    );
    assert_error("digraph { a -> b + \"c\" }", 1, &["found `+`"]);
}

#[test]
fn comments_and_hash_lines() {
    let text = "# preprocessor line\n/* block\n comment */ digraph // tail\n{\n#x -> y\n  a /* in\n */ -> b // c -> d\n# e -> f\n}\n# trailing\n// trailing\n";
    let g = parse(text);
    assert_eq!(edge_pairs(&g), [("a", "b")]);
    assert_eq!(g.edges[0].line, 7);
    assert_eq!(g.nodes[0].line, 6);
    // `#` is a comment only as the first character of a line.
    assert_error("digraph {\n a #b\n}", 2, &["`#`"]);
    assert_error("digraph {\n  # x\n}", 2, &["`#`"]);
}

#[test]
fn comment_tokenization() {
    let g = parse(
        "digraph { a -> b [comment=\" ,x,,y\tz\n\r w ,\"]; a -> c [comment=\"\"]; \
         a -> d [comment=\"x, *\"]; a -> e [comment=\" * \"]; a -> f [comment=\"*\"] }",
    );
    let e = &g.edges;
    assert_eq!(tokens(&g, &e[0]), ["x", "y", "z", "w"]);
    assert_eq!(e[1].comment, Comment::Tokens { start: 4, end: 4 });
    assert_eq!(tokens(&g, &e[2]), ["x", "*"]);
    assert_eq!(tokens(&g, &e[3]), ["*"]);
    assert_eq!(e[4].comment, Comment::All);
    assert_eq!(g.comment_tokens[2], g.symbols.get("z").unwrap());
    // Only edges carry the comment routing information.
    let g = parse("digraph { node [comment=\"n\"] a [comment=\"m\"] }");
    assert!(!g.comment_declared);
    assert_eq!(g.nodes[0].attrs, attrs(&[("comment", "m")]));
    assert!(g.comment_tokens.is_empty());
}

#[test]
fn strict_graphs_merge_repeated_edges() {
    let g = parse(
        "strict digraph {\n a -> b [key=1, comment=\"x\"]\n a -> c\n a -> b [comment=\"y\", color=red]\n b -> a\n a -> b [key=2]\n}",
    );
    assert!(g.strict);
    assert_eq!(edge_pairs(&g), [("a", "b"), ("a", "c"), ("b", "a")]);
    let e = &g.edges[0];
    assert_eq!(e.line, 2);
    assert_eq!(e.key.as_deref(), Some("2"));
    assert_eq!(tokens(&g, e), ["y"]);
    assert_eq!(e.attrs, attrs(&[("color", "red")]));
    // Merging into an edge without a comment declares one.
    let g = parse("strict digraph { a -> b; a -> b [comment=\"*\"] }");
    assert_eq!(g.edges.len(), 1);
    assert_eq!(g.edges[0].comment, Comment::All);
    assert!(g.comment_declared);
}

#[test]
fn non_strict_graphs_keep_repeated_edges() {
    let g = parse("digraph { a -> b; a -> b; a -> b [key=1]; a -> b [key=2]; b -> a [key=1] }");
    assert_eq!(g.edges.len(), 5);
}

#[test]
fn duplicate_key_is_an_error() {
    assert_error(
        "digraph {\n a -> b [key=1]\n c -> d\n a\n -> b [key=1]\n}",
        5,
        &["edge a -> b with key 1 is defined twice (first at line 2)"],
    );
    // The key may come from a default.
    assert_error(
        "digraph {\n edge [key=p]\n a -> b\n a -> b\n}",
        4,
        &["edge a -> b with key p is defined twice (first at line 3)"],
    );
    // A strict graph merges instead.
    assert_eq!(
        parse("strict digraph { a -> b [key=1]; a -> b [key=1] }")
            .edges
            .len(),
        1
    );
}

#[test]
fn undirected_graphs_are_rejected() {
    assert_error(
        "graph { a -- b }",
        1,
        &["expected `digraph`", "found `graph`", "undirected"],
    );
    assert_error(
        "strict\nGraph { }",
        2,
        &["expected `digraph`", "undirected"],
    );
    assert_error(
        "digraph {\n a -> b\n b -- c\n}",
        3,
        &["expected `->`, found `--`", "undirected"],
    );
    assert_error("digraph { a -> b -- c }", 1, &["found `--`"]);
}

#[test]
fn syntax_errors_say_what_was_expected() {
    assert_error(
        "",
        1,
        &["expected `digraph` or `strict digraph`, found end of input"],
    );
    assert_error("\n\nfoo {}", 3, &["expected `digraph`", "found `foo`"]);
    assert_error(
        "strict x",
        1,
        &["expected `digraph` after `strict`, found `x`"],
    );
    assert_error("digraph a b {}", 1, &["expected `{`", "found `b`"]);
    assert_error(
        "digraph {\n a -> b [x=1\n -> c]\n}",
        3,
        &["expected `]` or an attribute name, found `->`"],
    );
    assert_error(
        "digraph {\n a [x=]\n}",
        2,
        &["expected an attribute value after `=`, found `]`"],
    );
    assert_error(
        "digraph {\n a -> ;\n}",
        2,
        &["expected a node ID or a subgraph after `->`, found `;`"],
    );
    assert_error(
        "digraph {\n a = ;\n}",
        2,
        &["expected an ID after `=`, found `;`"],
    );
    assert_error(
        "digraph {\n a : ;\n}",
        2,
        &["expected a port name after `:`"],
    );
    assert_error(
        "digraph {\n node a\n}",
        2,
        &["expected `[` after `node`, found `a`"],
    );
    assert_error(
        "digraph {\n edge\n}",
        3,
        &["expected `[` after `edge`, found `}`"],
    );
    assert_error(
        "digraph {\n ]\n}",
        2,
        &["expected a statement or `}`, found `]`"],
    );
    assert_error(
        "digraph {\n subgraph x y\n}",
        2,
        &["expected `{` to open the subgraph body, found `y`"],
    );
    assert_error(
        "digraph {\n a -> b\n",
        3,
        &[
            "expected `}` to close the `{` opened at line 1",
            "end of input",
        ],
    );
    assert_error("digraph {\n a -> { b \n", 3, &["opened at line 2"]);
    assert_error(
        "digraph {\n}\n\n x",
        4,
        &["expected end of input after the closing `}`", "found `x`"],
    );
    assert_error("digraph {\n}\n}", 3, &["found `}`"]);
    assert_error(
        "digraph { a -> b } /* open",
        1,
        &["unterminated comment", "`*/`"],
    );
    assert_error(
        "digraph {\n a -> \"b\n\n",
        2,
        &["unterminated quoted string", "`\"`"],
    );
    assert_error(
        "digraph {\n a -> <b <c> \n",
        2,
        &["unterminated HTML string"],
    );
    assert_error(
        "digraph {\n a -> -x }",
        2,
        &["expected `->` or a number after `-`, found `x`"],
    );
    assert_error("digraph {\n a -> @ }", 2, &["unexpected character `@`"]);
    assert_error("digraph {\n a -> . }", 2, &["expected a digit after `.`"]);
}

#[test]
fn badly_delimited_numerals_are_errors() {
    assert_error(
        "digraph {\n\n 12ab -> c }",
        3,
        &["numeral `12` is immediately followed by `a`", "separator"],
    );
    assert_error(
        "digraph { a -> 1.2.3 }",
        1,
        &["numeral `1.2` is immediately followed by `.`"],
    );
    assert_error("digraph { a -> -1_ }", 1, &["numeral `-1`"]);
    // A numeral may be followed by punctuation directly.
    let g = parse("digraph { 1->2[key=3]}");
    assert_eq!(edge_pairs(&g), [("1", "2")]);
}

#[test]
fn invalid_utf8_and_read_errors_are_dot_errors() {
    let e = parse_dot(&b"digraph {\n a -> \"\xff\xfe\" }"[..]).unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(e.message.contains("UTF-8"), "{e}");
    let e = parse_dot(&b"digraph { a -> b [comment=\"x\xc3\"] }"[..]).unwrap_err();
    assert!(e.message.contains("UTF-8"), "{e}");

    struct Failing(usize);
    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::other("disk on fire"));
            }
            self.0 -= 1;
            let text = b"digraph {\n a -> b\n";
            let n = text.len().min(buf.len());
            buf[..n].copy_from_slice(&text[..n]);
            Ok(n)
        }
    }
    let e = parse_dot(BufReader::new(Failing(1))).unwrap_err();
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("read error: disk on fire"), "{e}");
}

use crate::test_support::Trickle;

#[test]
fn tokens_may_straddle_reads() {
    let text = "\u{feff}# x\n/* c */ strict digraph \"g\" {\n edge [k=v] a:p -> { b c } -> \"d\\\"\" + \"e\" \
                [key=1, comment=\"H1, \\\r\nH2\"];\n <x<y>> -> -1.5 [comment=\"*\"]; z = \"w\" // end\n}\n";
    let whole = parse(text);
    let trickled = parse_dot(BufReader::with_capacity(1, Trickle(text.as_bytes()))).unwrap();
    assert_eq!(node_names(&whole), ["a", "b", "c", "d\"e", "x<y>", "-1.5"]);
    assert_eq!(whole.graph_attrs, attrs(&[("z", "w")]));
    assert_eq!(whole.id.as_deref(), Some("g"));
    assert_eq!(node_names(&trickled), node_names(&whole));
    assert_eq!(trickled.edges, whole.edges);
    assert_eq!(trickled.comment_tokens, whole.comment_tokens);
    assert_eq!(trickled.graph_attrs, whole.graph_attrs);
    assert_eq!(tokens(&whole, &whole.edges[2]), ["H1", "H2"]);
    assert_eq!(whole.edges[4].line, 5);
}

#[test]
fn huge_quoted_strings_span_many_chunks() {
    let names: Vec<String> = (0..400_000).map(|i| format!("H{:05}", i % 4096)).collect();
    let mut comment = String::new();
    for (i, chunk) in names.chunks(16).enumerate() {
        if i > 0 {
            comment.push_str(", \\\n");
        }
        comment.push_str(&chunk.join(", "));
    }
    assert!(comment.len() > 3 * CHUNK);
    let text = format!("digraph {{\n a -> b [comment=\"{comment}\"]\n c -> d\n}}");
    let g = parse(&text);
    let toks = tokens(&g, &g.edges[0]);
    assert_eq!(toks.len(), names.len());
    assert!(toks.iter().zip(&names).all(|(a, b)| a == b));
    assert_eq!(g.symbols.len(), 4096 + 4);
    // The string starts on line 2 and has one continuation per 16 names.
    assert_eq!(g.edges[1].line, 2 + (names.len() as u32 / 16 - 1) + 1);
}

#[test]
fn graph_ids_and_top_level_attributes() {
    assert_eq!(parse("digraph {}").id, None);
    assert_eq!(parse("digraph \"my net\" {}").id.as_deref(), Some("my net"));
    assert_eq!(parse("digraph 7 {}").id.as_deref(), Some("7"));
    let g = parse("digraph { a = b; subgraph { c = d graph [e=f] } }");
    assert_eq!(g.graph_attrs, attrs(&[("a", "b")]));
    assert!(g.nodes.is_empty());
}

#[test]
fn later_node_statements_add_attributes() {
    let g =
        parse("digraph { node [shape=box] a -> b; node [shape=oval color=red] a [shape=dot]; b }");
    assert_eq!(g.nodes[0].attrs, attrs(&[("shape", "dot")]));
    assert_eq!(g.nodes[1].attrs, attrs(&[("shape", "box")]));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for opener in ["{", "a -> {", "subgraph s { b -> subgraph {"] {
        let text = format!("digraph {{ {} }}", opener.repeat(100_000));
        let e = error(&text);
        assert!(e.message.contains("nested too deeply"), "{e}");
    }
    let ok = format!("digraph {{ {}a{} }}", "{".repeat(50), "}".repeat(50));
    assert_eq!(node_names(&parse(&ok)), ["a"]);
}

#[test]
fn stray_semicolons_are_accepted() {
    let g = parse("digraph { ; a ;; b -> c; }");
    assert_eq!(node_names(&g), ["a", "b", "c"]);
}
