//! Property tests: Hamming distance is a metric's first two axioms, signatures are
//! deterministic and survive their byte form, and noise elements inserted anywhere between
//! words never change a signature.

#![allow(clippy::unwrap_used)]

use freshet_content::{DEFAULT_THRESHOLD, MainText, Signature, Verdict, compare, hamming_distance};
use proptest::prelude::*;

/// A short lower-case word from a 40-word vocabulary (small, so shingles repeat sometimes).
fn word() -> impl Strategy<Value = String> {
    (0usize..40).prop_map(|i| format!("w{i}"))
}

/// Paragraphs of words: the page's content.
fn paragraphs() -> impl Strategy<Value = Vec<Vec<String>>> {
    prop::collection::vec(prop::collection::vec(word(), 1..30), 1..8)
}

/// A noise element of one of the dropped kinds, with text of its own.
fn noise_element() -> impl Strategy<Value = String> {
    let text = prop::collection::vec("[A-Za-z0-9 ,:]{0,12}", 0..4).prop_map(|parts| parts.join(" "));
    (0usize..10, text).prop_map(|(kind, text)| match kind {
        0 => format!("<script>var t = '{text}';</script>"),
        1 => format!("<style>/* {text} */ p {{ margin: 0 }}</style>"),
        2 => format!("<nav><a href=\"/?sid={}\">{text}</a></nav>", text.len()),
        3 => format!("<div class=\"ad\">Advertisement: {text}</div>"),
        4 => format!("<p class=\"served\">Served {text}</p>"),
        5 => format!("<aside>{text}</aside>"),
        6 => format!("<!-- {text} -->"),
        7 => format!("<span class=\"timestamp\">{text}</span>"),
        8 => format!("<footer><p>{text}</p></footer>"),
        _ => format!("<div id=\"cookie-consent\"><p>{text}</p><button>ok</button></div>"),
    })
}

/// The page's HTML with `noise[k]` inserted before word `at[k]` (counted over all words).
fn render(paragraphs: &[Vec<String>], noise: &[(usize, String)]) -> String {
    let mut html = String::from("<html><body>");
    let mut index = 0;
    for paragraph in paragraphs {
        html.push_str("<p>");
        for word in paragraph {
            for (_, element) in noise.iter().filter(|(at, _)| *at == index) {
                html.push_str(element);
            }
            html.push_str(word);
            html.push(' ');
            index += 1;
        }
        html.push_str("</p>\n");
    }
    for (_, element) in noise.iter().filter(|(at, _)| *at >= index) {
        html.push_str(element);
    }
    html.push_str("</body></html>");
    html
}

proptest! {
    #[test]
    fn hamming_distance_is_symmetric_and_zero_only_for_equal(a: u64, b: u64) {
        prop_assert_eq!(hamming_distance(a, b), hamming_distance(b, a));
        prop_assert_eq!(hamming_distance(a, b) == 0, a == b);
        prop_assert_eq!(hamming_distance(a, a), 0);
        prop_assert!(hamming_distance(a, b) <= 64);
    }

    #[test]
    fn compare_is_symmetric(a: u64, b: u64, ta in 0u32..100, tb in 0u32..100, threshold in 0u32..8) {
        let x = Signature { exact: a, simhash: a.rotate_left(7), tokens: ta };
        let y = Signature { exact: b, simhash: b.rotate_left(7), tokens: tb };
        prop_assert_eq!(compare(&x, &y, threshold), compare(&y, &x, threshold));
        prop_assert_eq!(compare(&x, &x, threshold), Verdict::Same);
    }

    #[test]
    fn signature_is_deterministic_and_round_trips(paragraphs in paragraphs()) {
        let html = render(&paragraphs, &[]);
        let signature = Signature::of_html(&html, None);
        prop_assert_eq!(signature, Signature::of_html(&html, None));
        prop_assert_eq!(Signature::from_bytes(&signature.to_bytes()).unwrap(), signature);
        let words: usize = paragraphs.iter().map(Vec::len).sum();
        prop_assert_eq!(signature.tokens as usize, words);
    }

    #[test]
    fn noise_elements_never_change_the_signature(
        paragraphs in paragraphs(),
        noise in prop::collection::vec((0usize..250, noise_element()), 1..6),
    ) {
        let clean = Signature::of_html(&render(&paragraphs, &[]), None);
        let noisy = Signature::of_html(&render(&paragraphs, &noise), None);
        prop_assert_eq!(noisy.exact, clean.exact);
        prop_assert_eq!(noisy, clean);
        prop_assert_eq!(compare(&clean, &noisy, DEFAULT_THRESHOLD), Verdict::Same);
    }

    #[test]
    fn case_spacing_and_punctuation_never_change_the_signature(paragraphs in paragraphs(), style in 0usize..3) {
        let restyled: Vec<Vec<String>> = paragraphs
            .iter()
            .map(|paragraph| {
                paragraph
                    .iter()
                    .map(|word| match style {
                        0 => word.to_uppercase(),
                        1 => format!("{word},\n\t"),
                        _ => format!("<b>{word}</b>&nbsp;"),
                    })
                    .collect()
            })
            .collect();
        prop_assert_eq!(
            Signature::of_html(&render(&paragraphs, &[]), None),
            Signature::of_html(&render(&restyled, &[]), None)
        );
    }

    #[test]
    fn extraction_never_panics_on_arbitrary_input(html in "(<[a-z/!]{0,3}[^>]{0,8}>?|&[a-z#0-9]{0,5};?|[^<&]{0,10}){0,40}") {
        let text = MainText::from_html(&html);
        prop_assert!(text.blocks().iter().all(|block| !block.text().is_empty()));
        let _ = Signature::of_text(&text, None);
    }
}
