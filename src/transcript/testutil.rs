//! Test helper: run a rule over JSON messages and read the result back as JSON, through the same
//! skeleton and plan the JS boundary uses.

use super::context::{Ctx, JsonSource};
use super::incremental::{sanitize_tracked, Fallback, Prefix};
use super::model::Msg;
use super::pipeline::HistoryParams;
use super::{plan, skeleton};
use serde_json::Value;

/// Runs `rule` on `input` and returns the output messages and whether the plan was the identity.
pub fn run<F>(input: &Value, rule: F) -> (Vec<Value>, bool)
where
    F: FnOnce(&mut Vec<Msg>, &mut Ctx),
{
    let values = input.as_array().cloned().unwrap_or_default();
    let src = JsonSource(&values);
    let mut ctx = Ctx::new(&src, true);
    let mut msgs = skeleton::from_values(&values);
    rule(&mut msgs, &mut ctx);
    let p = plan::encode(&msgs, values.len());
    let identity = p.is_none();
    (plan::apply_values(&values, p.as_ref()), identity)
}

/// Like [`run`], returning the output as one JSON array.
pub fn run_json<F>(input: &Value, rule: F) -> Value
where
    F: FnOnce(&mut Vec<Msg>, &mut Ctx),
{
    Value::Array(run(input, rule).0)
}

/// The output of the incremental pass's tracked run over `input` (a JSON array) after `prior`,
/// with the prefix it concluded (either release, by `p.version`).
pub fn tracked_pass(
    input: &[Value],
    prior: Option<Prefix>,
    p: &HistoryParams,
) -> Result<(Vec<Value>, Option<Prefix>), Fallback> {
    let mut result = Ok(None);
    let (out, _) = run(&Value::Array(input.to_vec()), |m, c| {
        result = sanitize_tracked(m, c, p, prior).map(|(_, p)| p);
    });
    Ok((out, result?))
}

/// Grows a history step by step (each step appends), checking every incremental result against
/// a full pass of the whole history; returns how many steps continued.
pub fn check_incremental(steps: &[Vec<Value>], p: &HistoryParams) -> usize {
    replay_incremental(steps, p).iter().flatten().count()
}

/// [`check_incremental`], step by step: how many messages each step re-ran when it continued
/// (from the prefix's cut, or from the session's earlier cut it named), `None` for a full pass.
pub fn replay_incremental(steps: &[Vec<Value>], p: &HistoryParams) -> Vec<Option<usize>> {
    let (mut prefix, mut prev_out, mut history) = (None::<Prefix>, Vec::new(), Vec::new());
    let mut reran = Vec::new();
    for step in steps {
        history.extend(step.iter().cloned());
        let (full, full_prefix) = tracked_pass(&history, None, p).expect("a full pass");
        let mut from = prefix.take();
        let mut got = None;
        while let Some(pre) = from.take() {
            match tracked_pass(&history[pre.cut..], Some(pre.clone()), p) {
                Ok((suffix, next)) => {
                    reran.push(Some(history.len() - pre.cut));
                    prefix = next;
                    let mut out: Vec<Value> = prev_out[..pre.out].to_vec();
                    out.extend(suffix);
                    got = Some(out);
                }
                Err(f) => from = f.earlier.map(|p| *p),
            }
        }
        let got = got.unwrap_or_else(|| {
            reran.push(None);
            prefix = full_prefix;
            full.clone()
        });
        assert_eq!(got, full, "after {} messages", history.len());
        prev_out = got;
    }
    reran
}
