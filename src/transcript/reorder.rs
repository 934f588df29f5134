//! Rebuilding a transcript in an order a rule decided. The pairing repairs (2026.3.23's and
//! 2026.9.6's) first decide where every message goes, reading the transcript without moving a
//! message (the common transcript needs no move at all), and only then, when the order is not
//! the input's, move each message once. This is that second step, written once for both.

use super::model::Msg;

/// One output message: input message `Src(i)`, or `New(k)`, the `k`th message a rule made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Slot {
    Src(usize),
    New(usize),
}

/// Puts `msgs` in `order`, taking `New` slots from `new`; returns false, having moved nothing,
/// when `order` is every input message in input order. Each message is moved once.
///
/// ```
/// use transcript_hygiene::transcript::model::Msg;
/// use transcript_hygiene::transcript::reorder::{apply_order, Slot};
/// let mut msgs = vec![Msg::src(0), Msg::src(1)];
/// assert!(!apply_order(&mut msgs, [Slot::Src(0), Slot::Src(1)], Vec::new()));
/// assert!(apply_order(&mut msgs, [Slot::Src(1), Slot::New(0)], vec![Msg::src(7)]));
/// let at: Vec<_> = msgs.iter().map(Msg::src_index).collect();
/// assert_eq!(at, [Some(1), Some(7)]);
/// ```
pub fn apply_order<I>(msgs: &mut Vec<Msg>, order: I, new: Vec<Msg>) -> bool
where
    I: IntoIterator<Item = Slot>,
    I::IntoIter: Clone + ExactSizeIterator,
{
    let order = order.into_iter();
    let identity =
        order.len() == msgs.len() && order.clone().enumerate().all(|(k, s)| s == Slot::Src(k));
    if identity {
        return false;
    }
    let mut input = std::mem::take(msgs);
    let mut new: Vec<Option<Msg>> = new.into_iter().map(Some).collect();
    msgs.reserve(order.len());
    for slot in order {
        msgs.push(match slot {
            Slot::Src(i) => std::mem::replace(&mut input[i], Msg::src(i)),
            Slot::New(k) => new[k].take().unwrap_or_else(|| Msg::src(k)),
        });
    }
    true
}

/// Removes the messages at `sorted` (ascending, no repeats) in one pass: removing them one at a
/// time moves the tail once per removal, quadratic when many turns go.
///
/// ```
/// use transcript_hygiene::transcript::model::Msg;
/// use transcript_hygiene::transcript::reorder::remove_sorted;
/// let mut msgs: Vec<Msg> = (0..5).map(Msg::src).collect();
/// remove_sorted(&mut msgs, &[1, 3]);
/// let at: Vec<_> = msgs.iter().map(Msg::src_index).collect();
/// assert_eq!(at, [Some(0), Some(2), Some(4)]);
/// ```
pub fn remove_sorted(msgs: &mut Vec<Msg>, sorted: &[usize]) {
    if sorted.is_empty() {
        return;
    }
    let mut at = 0;
    let mut next = sorted.iter().peekable();
    msgs.retain(|_| {
        let gone = next.next_if_eq(&&at).is_some();
        at += 1;
        !gone
    });
}
