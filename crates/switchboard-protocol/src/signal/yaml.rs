//! A block's YAML read within a budget. Aliases let a few kilobytes name a
//! value many times over (the "billion laughs"): the parser is given a low
//! cap on the events aliases may replay, and the value is built by a seed
//! that counts what it holds and stops once that passes
//! [`MAX_EXPANDED_BYTES`], so no more than that is ever built.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::MAX_BLOCK_BYTES;

/// The most a block's value may hold once its aliases are expanded (text
/// and about a byte a node): twice the longest block, so a block that
/// repeats a part of itself through an alias still reads, and one that
/// multiplies itself is refused long before it could weigh on the store or
/// the window.
pub const MAX_EXPANDED_BYTES: usize = 2 * MAX_BLOCK_BYTES;

/// The most parser events aliases may replay in one block. A signal's
/// fields need none; this bounds the parser's work on aliases to scalars
/// too small for [`MAX_EXPANDED_BYTES`] to stop early.
const MAX_REPLAYED_EVENTS: usize = 10_000;

/// Why a block's YAML could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum YamlProblem {
    #[error("its aliases expand past {} KiB", MAX_EXPANDED_BYTES / 1024)]
    TooLarge,
    #[error("not valid YAML: {0}")]
    Invalid(String),
}

/// `text` as a JSON value, refused past [`MAX_EXPANDED_BYTES`] once
/// expanded or past the replay cap.
pub fn read(text: &str) -> Result<Value, YamlProblem> {
    let options = serde_saphyr::options! {
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: MAX_REPLAYED_EVENTS,
        },
    };
    let left = Cell::new(MAX_EXPANDED_BYTES);
    let over = Cell::new(false);
    let value = serde_saphyr::with_deserializer_from_str_with_options(text, options, |deserializer| {
        Bounded { left: &left, over: &over }.deserialize(deserializer)
    });
    value.map_err(|error| {
        use serde_saphyr::Error;
        // The cause, under the wrappers that say where it was.
        let mut cause = &error;
        while let Error::AliasError { error, .. } | Error::WithSnippet { error, .. } = cause {
            cause = error;
        }
        match cause {
            _ if over.get() => YamlProblem::TooLarge,
            Error::AliasReplayLimitExceeded { .. }
            | Error::AliasExpansionLimitExceeded { .. }
            | Error::AliasReplayStackDepthExceeded { .. }
            | Error::AliasReplayCounterOverflow { .. } => YamlProblem::TooLarge,
            _ => YamlProblem::Invalid(first_line(&error.to_string()).to_owned()),
        }
    })
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text)
}

/// Builds a [`Value`], charging what it holds to `left`; past it, `over` is
/// set and the parse fails.
#[derive(Clone, Copy)]
struct Bounded<'a> {
    left: &'a Cell<usize>,
    over: &'a Cell<bool>,
}

impl Bounded<'_> {
    fn charge<E: de::Error>(self, bytes: usize) -> Result<(), E> {
        // A node costs at least a byte, so a flood of empty ones counts too.
        match self.left.get().checked_sub(bytes.max(1)) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => {
                self.over.set(true);
                Err(E::custom(YamlProblem::TooLarge))
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for Bounded<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Bounded<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a YAML value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Value, E> {
        self.charge(1)?;
        Ok(Value::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Value, E> {
        self.charge(8)?;
        Ok(Value::from(value))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Value, E> {
        self.charge(8)?;
        Ok(Value::from(value))
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<Value, E> {
        self.charge(16)?;
        Ok(i64::try_from(value).map(Value::from).unwrap_or_else(|_| Value::String(value.to_string())))
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<Value, E> {
        self.charge(16)?;
        Ok(u64::try_from(value).map(Value::from).unwrap_or_else(|_| Value::String(value.to_string())))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        self.charge(8)?;
        Ok(serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Value, E> {
        self.charge(value.len())?;
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Value, E> {
        self.charge(value.len())?;
        Ok(Value::String(value))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.charge(1)?;
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.charge(1)?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.charge(1)?;
        let mut fields = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            self.charge(key.len())?;
            let value = map.next_value_seed(self)?;
            fields.insert(key, value);
        }
        Ok(Value::Object(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_as_json_and_past_the_budget_are_refused() {
        let cases: [(&str, Result<Value, YamlProblem>); 4] = [
            ("a: 1\nb: [x, 2.5, true, ~]", Ok(serde_json::json!({"a": 1, "b": ["x", 2.5, true, null]}))),
            ("a: &x hi\nb: *x", Ok(serde_json::json!({"a": "hi", "b": "hi"}))),
            ("a: [unclosed", Err(YamlProblem::Invalid(String::new()))),
            ("a: [*nowhere]", Err(YamlProblem::Invalid(String::new()))),
        ];
        for (text, expected) in cases {
            match (read(text), expected) {
                (Err(YamlProblem::Invalid(_)), Err(YamlProblem::Invalid(_))) => {}
                (got, expected) => assert_eq!(got, expected, "{text}"),
            }
        }
        let long = format!("a: {}", "x".repeat(MAX_EXPANDED_BYTES));
        assert_eq!(read(&long), Err(YamlProblem::TooLarge));
        let many = format!("a: &a [{}]\nb: [{}]", vec!["1"; 100].join(","), vec!["*a"; 200].join(","));
        assert_eq!(read(&many), Err(YamlProblem::TooLarge), "a flood of small values replayed");
    }
}
