//! The bench page shared by `links.rs` here and `crates/content/benches/signature.rs`: a
//! deterministic HTML page of navigation, paragraphs and links, about `target` bytes.

/// A deterministic page of about `target` bytes with one link per ~120 bytes of text.
pub(crate) fn page(target: usize) -> String {
    let mut html = String::from(
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>Bench page</title>\n\
         <meta name=viewport content=\"width=device-width\"><link rel=stylesheet href=/s.css>\n\
         <link rel=canonical href=/articles/bench><link rel=alternate hreflang=fr href=/fr/articles/bench>\n\
         <script>window.dataLayer = []; function f(a) { return a < 3 && '<a href=x>'; }</script></head>\n\
         <body><nav><ul>",
    );
    for i in 0..40 {
        html.push_str(&format!("<li><a href=\"/section/{i}/\" class=\"nav-item\">Section {i}</a></li>"));
    }
    html.push_str("</ul></nav>\n<main>");
    let mut n = 0u64;
    while html.len() < target {
        n += 1;
        html.push_str(&format!(
            "<p class=\"para\">Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod \
             <a href=\"../articles/{n}?ref=bench&amp;page={}\" title=\"Article {n}\">article {n}</a> tempor \
             incididunt ut labore et dolore magna aliqua. <em>Ut enim</em> ad minim veniam.</p>\n",
            n % 7
        ));
    }
    html.push_str(
        "</main><footer><a href=\"https://other.test/\" rel=nofollow>x</a></footer></body></html>\n",
    );
    html
}
