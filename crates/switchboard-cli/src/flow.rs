//! `switchboard flow --agent N`: where an agent stands in each of the spec's
//! diagrams.

use std::io::Write;

use anyhow::Result;
use switchboard_api::{DiagramSilence, FlowTarget};
use switchboard_client::blocking::Client;

use crate::Output;
use crate::agent::find_agent;
use crate::print::{columns, print};

pub(crate) fn run(client: &Client, agent: &str, output: Output, out: &mut impl Write) -> Result<()> {
    let profile = find_agent(client, agent)?;
    let view = client.flow_view(FlowTarget::Agent { profile_id: profile.id }, None)?;
    print(out, output, &view, |view| {
        columns(view.diagrams.iter().map(|d| {
            let lit = match (&d.silent, d.current.is_empty()) {
                (Some(DiagramSilence::NoHooks), _) => "(nothing to show: it sends no hook events)".to_owned(),
                (Some(DiagramSilence::NoSignalProtocols), _) => {
                    "(nothing to show: it is not taught the signals)".to_owned()
                }
                (None, true) => "-".to_owned(),
                (None, false) => d.current.join(", "),
            };
            vec![d.diagram.as_str().to_owned(), lit]
        }))
    })
}
