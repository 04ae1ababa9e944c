//! What the window reads across the engine: flow diagrams and their events, search, the overview, agents' statuses.

use super::EngineState;
use crate::engine::status;
use crate::error::EngineError;
use switchboard_api::AgentStatusInfo;

/// A search reads the rows its words narrow to this many at a time (tasks
/// and signals each), newest first, until it has found enough or read
/// `SEARCH_BATCHES` batches: a word that is also in every stored record
/// (such as "tests") still finds an older task that holds it.
const SEARCH_BATCH: usize = 500;
const SEARCH_BATCHES: usize = 40;

impl EngineState {
    pub(in crate::engine) fn cost_report(
        &self,
        since: switchboard_api::CostSince,
        by: switchboard_api::CostGrouping,
    ) -> Result<switchboard_api::CostReport, EngineError> {
        crate::engine::usage::report::cost_report(&self.cx, since, by)
    }

    pub(in crate::engine) fn flow_diagrams(&self) -> Result<Vec<switchboard_api::Diagram>, EngineError> {
        Ok(crate::flows::diagrams::all().to_vec())
    }

    pub(in crate::engine) fn flow_view(
        &self,
        target: switchboard_api::FlowTarget,
        until_seq: Option<i64>,
    ) -> Result<switchboard_api::FlowView, EngineError> {
        crate::engine::flows::view(&self.cx, target, until_seq)
    }

    pub(in crate::engine) fn flow_events(
        &self,
        target: switchboard_api::FlowTarget,
        since_at: Option<switchboard_api::Millis>,
        limit: u32,
    ) -> Result<switchboard_api::FlowEvents, EngineError> {
        crate::engine::flows::events(&self.cx, target, since_at, limit)
    }

    pub(in crate::engine) fn export_flow_events(
        &self,
        target: switchboard_api::FlowTarget,
    ) -> Result<String, EngineError> {
        crate::engine::flows::export(&self.cx, &self.config.data_dir, target)
    }

    pub(in crate::engine) fn search(&self, query: String) -> Result<Vec<crate::search::SearchHit>, EngineError> {
        let Some(query) = crate::search::Query::parse(&query)? else { return Ok(Vec::new()) };
        let patterns = query.like_patterns();
        let mut found = Vec::new();
        for batch in 0..SEARCH_BATCHES {
            let (tasks, signals) = self.cx.store.search_candidates(&patterns, SEARCH_BATCH, batch * SEARCH_BATCH)?;
            let more = tasks.len() == SEARCH_BATCH || signals.len() == SEARCH_BATCH;
            found.extend(crate::search::hits(&query, &tasks, &signals));
            if found.len() >= crate::search::MAX_HITS || !more {
                break;
            }
        }
        Ok(crate::search::newest(found))
    }

    pub(in crate::engine) fn flow_overview(&mut self) -> Result<switchboard_api::Overview, EngineError> {
        self.refresh_attention()?;
        crate::engine::flows::overview(&self.cx, self.tasks.queues(&self.cx)?, self.attention.shown())
    }

    pub(in crate::engine) fn list_agent_status(&self) -> Result<Vec<AgentStatusInfo>, EngineError> {
        Ok(status::list(&self.cx.sessions))
    }
}
