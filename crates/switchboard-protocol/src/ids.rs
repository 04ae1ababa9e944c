//! Identifiers. Every id is a lowercase UUID, so it is safe to use as a file
//! name, in an environment variable and in a URL by construction; parsing
//! refuses anything else.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;
use uuid::Uuid;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a valid {what} id")]
pub struct IdError {
    pub what: &'static str,
    pub text: String,
}

macro_rules! uuid_id {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "ts", derive(TS))]
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        pub struct $name(Uuid);

        impl $name {
            pub fn new() -> Self {
                Self(Uuid::new_v4())
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.as_hyphenated().fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = IdError;
            fn from_str(text: &str) -> Result<Self, IdError> {
                // Only the canonical lowercase hyphenated form: one spelling per id.
                match Uuid::try_parse(text) {
                    Ok(uuid) if uuid.as_hyphenated().to_string() == text => Ok(Self(uuid)),
                    _ => Err(IdError { what: $what, text: text.to_owned() }),
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

uuid_id!(
    /// An agent profile: what to run and where.
    ProfileId,
    "profile"
);
uuid_id!(
    /// One run of a profile in a PTY.
    SessionId,
    "session"
);
uuid_id!(
    /// A protocol signal an agent raised (a question, a blocker, a request
    /// to delegate, a completion report).
    SignalId,
    "signal"
);
uuid_id!(
    /// A loop: an agent's fresh sessions toward one goal until it is done.
    LoopId,
    "loop"
);
uuid_id!(
    /// An automation: work that starts by itself, on a schedule or after
    /// other work.
    AutomationId,
    "automation"
);
uuid_id!(
    /// A task given to an agent. Its text names the summary file
    /// `summaries/<id>.md`, so the id must be (and is) a safe file name.
    TaskId,
    "task"
);

/// A fresh secret: 244 random bits (two version-4 UUIDs), as hex. What a
/// session's hook events carry to be taken for it.
pub fn new_secret() -> String {
    format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_refuse_other_spellings() {
        let id = SessionId::new();
        let text = id.to_string();
        assert_eq!(text.parse::<SessionId>().unwrap(), id);
        assert_eq!(serde_json::to_string(&id).unwrap(), format!("\"{text}\""));

        for bad in ["", "../etc/passwd", "not-a-uuid", &text.to_uppercase(), &text.replace('-', "")] {
            assert!(bad.parse::<SessionId>().is_err(), "accepted {bad:?}");
            assert!(serde_json::from_str::<SessionId>(&format!("\"{bad}\"")).is_err());
        }
    }
}
