//! Automations (pure): when a schedule runs, and the rules an automation's
//! runs follow. The engine's automation desk applies them.

pub mod rules;
pub mod schedule;
