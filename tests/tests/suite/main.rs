//! The engine's integration tests, in one binary (one link for all of
//! them): each module is one subject, driving a real engine as its clients
//! do (`support`). Tests that change the whole process (the umask and the
//! log's subscriber: `storage.rs`), need the real agent CLIs
//! (`real_agents.rs`) or run as the fuzz bench's binary (`fuzz.rs`) have
//! binaries of their own.

mod support;

mod agents;
mod attention;
mod automations;
mod cli;
mod contract;
mod cost;
mod crash;
mod daemon_socket;
mod engine_environment;
mod find_engine;
mod hooks;
mod hostile;
mod hosts;
mod identity;
mod limits;
mod loops;
mod map;
mod module_graph;
mod other_user;
mod sessions;
mod settings;
mod signal_golden;
mod signals;
mod store_fixtures;
mod tasks;
mod tools;
mod waits;
mod web;
mod worktrees;
