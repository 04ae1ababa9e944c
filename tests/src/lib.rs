//! The test-support crate of Switchboard: the scripted demo agent (also
//! shipped with the app), helpers for the end-to-end tests in `tests/`, and
//! fixtures under `fixtures/`.

pub mod demo;
pub mod fake_model;
pub mod measure;
pub mod netns;
pub mod repo;
pub mod session_env;
pub mod sshd;
