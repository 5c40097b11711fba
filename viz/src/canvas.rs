//! The blank canvas every picture starts from: its size, font and class,
//! on a white ground. Titles are each picture's own.

use svg::node::element::Rectangle;
use svg::Document;

/// A `width` by `height` canvas in sans-serif of `font_size`, of SVG class
/// `class`, on a white ground.
pub(crate) fn canvas(width: f64, height: f64, font_size: u32, class: &str) -> Document {
    Document::new()
        .set("width", width)
        .set("height", height)
        .set("viewBox", (0, 0, width, height))
        .set("font-family", "sans-serif")
        .set("font-size", font_size)
        .set("class", class)
        .add(
            Rectangle::new()
                .set("width", "100%")
                .set("height", "100%")
                .set("fill", "#ffffff"),
        )
}
