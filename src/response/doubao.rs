//! ByteDance Doubao's call list between special tokens:
//!
//! ```text
//! <|FunctionCallBegin|>[{"name": "self_camera_take_photo", "parameters": {"question": "描述一下看到的物品"}}]<|FunctionCallEnd|>
//! ```
//!
//! Why: when a relay or a server without Doubao's parser passes the reply through, the list
//! reaches the user as text (xiaozhi-esp32-server#2776: a voice assistant read it aloud). Both
//! tokens are special tokens, so `<|FunctionCallBegin|>` followed by a list is taken in `auto`;
//! bodies are read by [`super::json_calls`] (arguments under `parameters` or `arguments`).

use super::json_calls::{Body, Close, Tagged};

pub const OPEN: &str = "<|FunctionCallBegin|>";
pub const CLOSE: &str = "<|FunctionCallEnd|>";

pub const SPEC: Tagged = Tagged {
    name: "doubao",
    opens: &[OPEN],
    body: Body::Either,
    close: Close::Required(CLOSE),
    glued: false,
};

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn list_between_the_tokens_after_chinese_prose() {
        let t = "好的，我来拍张照片。<|FunctionCallBegin|>[{\"name\": \"self_camera_take_photo\", \"parameters\": {\"question\": \"描述一下看到的物品\"}}]<|FunctionCallEnd|>";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("doubao"));
        assert_eq!(c.content, "好的，我来拍张照片。");
        assert_eq!(
            named(&c),
            [(
                "self_camera_take_photo",
                json!({"question": "描述一下看到的物品"})
            )]
        );
    }

    #[test]
    fn grows_linearly_on_unclosed_lists() {
        super::super::linearity::assert_linear(
            "doubao",
            "<|FunctionCallBegin|>[{\"name\": \"f\", ",
            &|t| {
                run(t, None, None, None);
            },
        );
    }
}
