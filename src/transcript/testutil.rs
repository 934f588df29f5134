//! Test helper: run a rule over JSON messages and read the result back as JSON, through the same
//! skeleton and plan the JS boundary uses.

use super::context::{Ctx, JsonSource};
use super::model::Msg;
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
