//! A JSON string field borrowed from the line when it holds no escape.
//!
//! serde's `#[serde(borrow)]` borrows a `Cow<str>` field only when the
//! field's type is `Cow<str>` itself: an `Option<Cow<str>>` is read through
//! `Cow`'s own `Deserialize`, which always copies into a new `String` (three
//! allocations a line). [`Text`] is read by a visitor that keeps the
//! borrowed case, and refuses what is not a string as `String` does, with
//! the same words.

use serde::{Deserialize, Deserializer};
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// A string field: borrowed from the line, or owned when it held escapes.
#[derive(Debug, PartialEq)]
pub(super) struct Text<'a>(pub(super) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                // What `String`'s visitor says, so errors read as before.
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(Visit(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Line<'a> {
        #[serde(borrow, default)]
        name: Option<Text<'a>>,
    }

    #[test]
    fn plain_strings_are_borrowed_escaped_ones_owned_and_others_refused_as_before() {
        let line: Line = serde_json::from_str(r#"{"name": "bob"}"#).unwrap();
        assert!(matches!(line.name, Some(Text(Cow::Borrowed("bob")))));
        let line: Line = serde_json::from_str(r#"{"name": "b\u00f6b"}"#).unwrap();
        assert!(matches!(line.name, Some(Text(Cow::Owned(ref s))) if s == "böb"));
        let line: Line = serde_json::from_str(r#"{"name": null}"#).unwrap();
        assert!(line.name.is_none());
        #[derive(Deserialize)]
        struct Owned {
            #[allow(dead_code)]
            name: Option<Cow<'static, str>>,
        }
        for bad in [r#"{"name": 5}"#, r#"{"name": [1]}"#, r#"{"name": true}"#] {
            let ours = serde_json::from_str::<Line>(bad).err().unwrap().to_string();
            let theirs = serde_json::from_str::<Owned>(bad)
                .err()
                .unwrap()
                .to_string();
            assert_eq!(ours, theirs);
        }
    }
}
