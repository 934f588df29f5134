//! Images over the limits in a wire body, re-encoded (or replaced by a note) by the transcript
//! pass's own image step.
//!
//! A client may send an image every provider rejects: a 9 MB screenshot to Anthropic (`image
//! exceeds 5 MB maximum: 9437184 bytes > 5242880 bytes`), a 2560 px one in a request of more than
//! 20 images (`At least one of the image dimensions exceed max allowed size for many-image
//! requests: 2000 pixels`), bytes that are not an image at all. The transcript pass already
//! decides each image of a pi history (`rules::images`: header first, the process-wide cache,
//! decode, downscale, re-encode as JPEG, or an explanatory text); this module only finds the
//! images in each protocol's shape and says the decisions as edits of the body:
//!
//! - OpenAI chat: `messages[i].content[j]` of type `image_url`, its `image_url.url` (or
//!   `image_url` itself, a string) a `data:` URL;
//! - OpenAI Responses: `input[i].content[j]` and `input[i].output[j]` of type `input_image`, its
//!   `image_url` a `data:` URL;
//! - Anthropic: `messages[i].content[j]` of type `image` with a `base64` `source` (`media_type`,
//!   `data`), also inside a `tool_result`'s `content`;
//! - Gemini: `contents[i].parts[j].inlineData` (`mimeType`, `data`), or `inline_data`
//!   (`mime_type`), also in a function response's own `parts` (Gemini 3's multimodal function
//!   responses: `functionResponse.parts[k].inlineData`), where an unusable image stays, as a text
//!   part is not accepted there.
//!
//! Remote URLs and file ids are the provider's to fetch and are left alone, as is a `data:` URL
//! that is not base64. A re-encoded image replaces only its payload string (and the media type
//! beside it when that changed; a data URL is written whole); an image that cannot be used
//! becomes a text part of the protocol carrying the transcript pass's note. The limits are the
//! transcript pass's options, with the defaults of the provider the protocol speaks to where it
//! documents them ([`limits`]).

use super::edit::{path_text, BodyPlan, Leaf, Seg};
use super::node::{Node, View};
use super::{Decision, Protocol, WireOptions};
use crate::image::{strip_data_url, ImageLimits, DEFAULT_MAX_BYTES, DEFAULT_MAX_DIMENSION_PX};
use crate::openclaw::OpenClawVersion;
use crate::transcript::context::Change;
use crate::transcript::rules::images::{payload_outcome, ImagePassOptions, Outcome, Payload};
use serde_json::{json, Value};

/// Characters of a payload the image step reads before it needs the whole string (as the
/// transcript codec sends).
const PAYLOAD_HEAD: usize = 1024;

/// The label of the notes an omitted image leaves (`[request] omitted image payload: …`).
pub const LABEL: &str = "request";

/// Anthropic: "image exceeds 5 MB maximum: … bytes > 5242880 bytes", measured on the base64
/// string (anthropics/claude-code#14887; claude-code's `API_IMAGE_MAX_BASE64_SIZE`), so 3/4 of
/// 5 MiB decoded; sides up to 8000 px.
pub const ANTHROPIC_MAX_BYTES: usize = 5 * 1024 * 1024 / 4 * 3;
pub const ANTHROPIC_MAX_DIMENSION_PX: u32 = 8000;
/// Anthropic, in a request of more than [`ANTHROPIC_MANY_IMAGES`] images: "At least one of the
/// image dimensions exceed max allowed size for many-image requests: 2000 pixels"
/// (anomalyco/opencode#12068).
pub const ANTHROPIC_MANY_IMAGES_PX: u32 = 2000;
pub const ANTHROPIC_MANY_IMAGES: usize = 20;
/// OpenAI: 20 MB per image (its vision guide); no pixel limit is documented (images are scaled
/// by the API), so the transcript pass's default side applies.
pub const OPENAI_MAX_BYTES: usize = 20_000_000;

/// The image options a caller gave (`maxDimensionPx`, `maxBytes`, `maxDecodeBytes`,
/// `openclawVersion`); what is not given comes from [`limits`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImageOptions {
    pub max_dimension_px: Option<u32>,
    pub max_bytes: Option<usize>,
    pub max_decode_bytes: Option<u64>,
    pub release: Option<OpenClawVersion>,
}

impl ImageOptions {
    pub fn from_json(cfg: &Value) -> ImageOptions {
        let l = crate::transcript::ops::limits(cfg);
        let given = |k: &str| {
            cfg.get(k)
                .is_some_and(|v| v.as_f64().is_some_and(f64::is_finite))
        };
        ImageOptions {
            max_dimension_px: given("maxDimensionPx").then_some(l.max_dimension_px),
            max_bytes: given("maxBytes").then_some(l.max_bytes),
            max_decode_bytes: given("maxDecodeBytes").then_some(l.max_decode_bytes),
            release: cfg
                .get("openclawVersion")
                .and_then(Value::as_str)
                .and_then(OpenClawVersion::parse),
        }
    }
}

/// The limits for a body of `protocol` holding `count` images: the caller's, else the provider's
/// documented ones (Anthropic 5 MB of base64 and 8000 px, 2000 px past 20 images; OpenAI 20 MB),
/// else the transcript pass's defaults (5 MiB, 1200 px); the process's OpenClaw release unless
/// one is named.
pub fn limits(o: &ImageOptions, protocol: Protocol, count: usize) -> ImageLimits {
    let (bytes, side) = match protocol {
        Protocol::Anthropic if count > ANTHROPIC_MANY_IMAGES => {
            (ANTHROPIC_MAX_BYTES, ANTHROPIC_MANY_IMAGES_PX)
        }
        Protocol::Anthropic => (ANTHROPIC_MAX_BYTES, ANTHROPIC_MAX_DIMENSION_PX),
        Protocol::OpenAiChat | Protocol::OpenAiResponses => {
            (OPENAI_MAX_BYTES, DEFAULT_MAX_DIMENSION_PX)
        }
        Protocol::Gemini => (DEFAULT_MAX_BYTES, DEFAULT_MAX_DIMENSION_PX),
    };
    ImageLimits {
        max_dimension_px: o.max_dimension_px.unwrap_or(side),
        max_bytes: o.max_bytes.unwrap_or(bytes),
        max_decode_bytes: o
            .max_decode_bytes
            .unwrap_or(crate::image::DEFAULT_MAX_DECODE_BYTES),
        release: o.release.unwrap_or_else(crate::openclaw::default_version),
    }
}

/// How the whole string at `path` (the node `N` there) is read: the node's own text for a body
/// read from bytes or a `serde_json::Value`, the caller's object for a skeleton.
pub type Fetch<'f, N> = &'f dyn Fn(N, &[Seg], &mut dyn FnMut(&[u8])) -> bool;

/// One image of the body.
struct Site<N> {
    /// The image part, which becomes a text part when the image is omitted.
    part: (N, Vec<Seg>),
    /// The string holding the payload.
    data: (N, Vec<Seg>),
    /// `data` is a `data:` URL rather than bare base64.
    url: bool,
    /// The media type string beside bare base64.
    mime: Option<(N, Vec<Seg>)>,
    /// An unusable image may become a text part here (not inside a Gemini function response,
    /// whose parts take media only).
    text_ok: bool,
}

fn at(path: &[Seg], seg: Seg) -> Vec<Seg> {
    let mut v = Vec::with_capacity(path.len() + 1);
    v.extend_from_slice(path);
    v.push(seg);
    v
}

fn type_is<'a, N: Node<'a>>(v: N, ty: &str) -> bool {
    v.get("type").and_then(Node::str).as_deref() == Some(ty)
}

type PartFn<N> = fn(N, Vec<Seg>, &mut Vec<Site<N>>);

/// Each item of `parent[list]`, given to `part` with its path.
fn each<'a, N: Node<'a>>(
    parent: N,
    path: &[Seg],
    list: &'static str,
    out: &mut Vec<Site<N>>,
    part: PartFn<N>,
) {
    let Some(items) = parent.get(list) else {
        return;
    };
    let base = at(path, Seg::Key(list));
    for (j, p) in items.items().enumerate() {
        part(p, at(&base, Seg::Idx(j)), out);
    }
}

fn url_site<'a, N: Node<'a>>(
    part: N,
    path: Vec<Seg>,
    out: &mut Vec<Site<N>>,
    keys: &[&'static str],
) {
    let mut node = part;
    let mut data = path.clone();
    for k in keys {
        match node.get(k) {
            Some(n) => {
                node = n;
                data.push(Seg::Key(k));
            }
            None => return,
        }
    }
    if node.is_str() {
        out.push(Site {
            part: (part, path),
            data: (node, data),
            url: true,
            mime: None,
            text_ok: true,
        });
    }
}

fn chat_part<'a, N: Node<'a>>(p: N, path: Vec<Seg>, out: &mut Vec<Site<N>>) {
    if !type_is(p, "image_url") {
        return;
    }
    match p.get("image_url").map(Node::view) {
        Some(View::Obj(_)) => url_site(p, path, out, &["image_url", "url"]),
        Some(View::Str(_)) => url_site(p, path, out, &["image_url"]),
        _ => {}
    }
}

fn responses_part<'a, N: Node<'a>>(p: N, path: Vec<Seg>, out: &mut Vec<Site<N>>) {
    if type_is(p, "input_image") {
        url_site(p, path, out, &["image_url"]);
    }
}

/// A bare base64 payload `holder[data]` beside its media type `holder[mime]`.
fn base64_site<'a, N: Node<'a>>(
    part: N,
    path: Vec<Seg>,
    holder: &'static str,
    keys: (&'static str, &'static str),
    out: &mut Vec<Site<N>>,
) {
    let Some(h) = part.get(holder).filter(|h| h.is_obj()) else {
        return;
    };
    let (Some(data), Some(mime)) = (h.get(keys.0), h.get(keys.1)) else {
        return;
    };
    if !data.is_str() || !mime.is_str() {
        return;
    }
    let base = at(&path, Seg::Key(holder));
    out.push(Site {
        data: (data, at(&base, Seg::Key(keys.0))),
        mime: Some((mime, at(&base, Seg::Key(keys.1)))),
        part: (part, path),
        url: false,
        text_ok: true,
    });
}

fn anthropic_image<'a, N: Node<'a>>(p: N, path: Vec<Seg>, out: &mut Vec<Site<N>>) {
    let base64 = p.get("source").is_some_and(|s| type_is(s, "base64"));
    if type_is(p, "image") && base64 {
        base64_site(p, path, "source", ("data", "media_type"), out);
    }
}

fn anthropic_part<'a, N: Node<'a>>(p: N, path: Vec<Seg>, out: &mut Vec<Site<N>>) {
    if type_is(p, "tool_result") {
        each(p, &path, "content", out, anthropic_image);
    } else {
        anthropic_image(p, path, out);
    }
}

fn gemini_part<'a, N: Node<'a>>(p: N, path: Vec<Seg>, out: &mut Vec<Site<N>>) {
    if let Some(r) = p.get("functionResponse") {
        // Gemini 3's multimodal function responses carry their images in `parts` inside the
        // response, where only media parts are accepted: one that cannot be used stays.
        let from = out.len();
        each(
            r,
            &at(&path, Seg::Key("functionResponse")),
            "parts",
            out,
            gemini_part,
        );
        out[from..].iter_mut().for_each(|s| s.text_ok = false);
        return;
    }
    if p.get("inlineData").is_some() {
        base64_site(p, path, "inlineData", ("data", "mimeType"), out);
    } else {
        base64_site(p, path, "inline_data", ("data", "mime_type"), out);
    }
}

/// The images of the body, in its order.
fn sites<'a, N: Node<'a>>(body: N, protocol: Protocol) -> Vec<Site<N>> {
    let key = protocol.key();
    let mut out = Vec::new();
    let Some(list) = body.get(key) else {
        return out;
    };
    for (i, m) in list.items().enumerate() {
        let path = [Seg::Key(key), Seg::Idx(i)];
        match protocol {
            Protocol::OpenAiChat => each(m, &path, "content", &mut out, chat_part),
            Protocol::OpenAiResponses => {
                each(m, &path, "content", &mut out, responses_part);
                each(m, &path, "output", &mut out, responses_part);
            }
            Protocol::Anthropic => each(m, &path, "content", &mut out, anthropic_part),
            Protocol::Gemini => each(m, &path, "parts", &mut out, gemini_part),
        }
    }
    out
}

/// How many images Anthropic counts in the body for its many-image limit: every `image` block,
/// in a turn or in a `tool_result`, whatever its source (a URL or a file id too: claude-code and
/// opencode hit the 2000 px limit in histories of mixed images); the base64 ones found otherwise.
fn image_count<'a, N: Node<'a>>(body: N, protocol: Protocol, base64: usize) -> usize {
    if protocol != Protocol::Anthropic {
        return base64;
    }
    let is_image = |b: &N| type_is(*b, "image");
    let blocks = |m: N| m.get("content").into_iter().flat_map(|c| c.items());
    body.get(protocol.key())
        .into_iter()
        .flat_map(|l| l.items())
        .flat_map(blocks)
        .map(|b| {
            if type_is(b, "tool_result") {
                blocks(b).filter(is_image).count()
            } else {
                usize::from(is_image(&b))
            }
        })
        .sum()
}

/// The text part that stands for an omitted image.
fn text_part(protocol: Protocol, text: &str) -> Value {
    match protocol {
        Protocol::OpenAiChat | Protocol::Anthropic => json!({"type": "text", "text": text}),
        Protocol::OpenAiResponses => json!({"type": "input_text", "text": text}),
        Protocol::Gemini => json!({"text": text}),
    }
}

/// The first `max` UTF-16 units of `s` (whole characters).
fn cut(s: &str, max: usize) -> &str {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        units += c.len_utf16();
        if units > max {
            return &s[..i];
        }
    }
    s
}

fn leaf<'a, N: Node<'a>>(node: N, path: &[Seg], value: Value) -> Leaf {
    Leaf {
        path: path.to_vec(),
        span: node.byte_span(),
        value,
    }
}

/// The edits for one image and the detail of its change; `None` when it stays as it is.
fn decide<'a, N: Node<'a>>(
    site: &Site<N>,
    fetch: Fetch<N>,
    opts: &ImagePassOptions,
    protocol: Protocol,
) -> Option<(Vec<Leaf>, String)> {
    let (node, path) = (&site.data.0, &site.data.1);
    let (len, head) = node.head(super::skeleton::HEAD_CHARS)?;
    // The media type beside bare base64 (a short string, read whole).
    let mime = match &site.mime {
        Some((m, _)) => Some(m.str()?),
        None => None,
    };
    let (prefix, declared) = if site.url {
        let (payload, media, stripped) = strip_data_url(&head);
        if !stripped {
            return None;
        }
        (&head[..head.len() - payload.len()], media.unwrap_or(""))
    } else {
        ("", mime.as_deref()?)
    };
    let payload = Payload {
        len: len.checked_sub(prefix.encode_utf16().count())?,
        head: cut(&head[prefix.len()..], PAYLOAD_HEAD),
        digest: None,
        declared,
    };
    let url = site.url;
    let mut full = |f: &mut dyn FnMut(&[u8])| {
        fetch(*node, path, &mut |bytes| {
            if !url {
                return f(bytes);
            }
            if let Ok(s) = std::str::from_utf8(bytes) {
                f(strip_data_url(s).0.as_bytes());
            }
        })
    };
    let (outcome, _) = payload_outcome(&payload, &mut full, opts);
    match outcome {
        Outcome::Keep => None,
        Outcome::Text(_) if !site.text_ok => None,
        Outcome::Text(t) => {
            let (pnode, ppath) = &site.part;
            let l = leaf(*pnode, ppath, text_part(protocol, &t));
            Some((vec![l], t))
        }
        Outcome::Set(sets, detail) => {
            let get = |k: &str| sets.iter().find(|(n, _)| *n == k).map(|(_, v)| v.as_str());
            let mut leaves = Vec::new();
            match (url, get("data")) {
                // A data URL's media type alone is not rewritten (the bytes name the format).
                (true, None) => return None,
                (true, Some(data)) => {
                    let prefix = match get("mimeType") {
                        Some(m) => format!("data:{m};base64,"),
                        None => prefix.trim_start().to_string(),
                    };
                    leaves.push(leaf(*node, path, json!(prefix + data)));
                }
                (false, data) => {
                    if let Some(data) = data {
                        leaves.push(leaf(*node, path, json!(data)));
                    }
                    if let (Some(m), Some((mnode, mpath))) = (get("mimeType"), &site.mime) {
                        leaves.push(leaf(*mnode, mpath, json!(m)));
                    }
                }
            }
            Some((leaves, detail.text()))
        }
    }
}

/// Adds the image edits of `body` to `d` (its changes first, under `report`).
pub fn add<'a, N: Node<'a>>(
    body: N,
    protocol: Protocol,
    opts: &WireOptions,
    fetch: Fetch<N>,
    d: &mut Decision,
) {
    let sites = sites(body, protocol);
    if sites.is_empty() {
        return;
    }
    let pass = ImagePassOptions {
        label: LABEL.into(),
        limits: limits(
            &opts.images,
            protocol,
            image_count(body, protocol, sites.len()),
        ),
        ..ImagePassOptions::default()
    };
    let mut leaves = Vec::new();
    let mut changes = Vec::new();
    for s in &sites {
        let Some((mut ls, detail)) = decide(s, fetch, &pass, protocol) else {
            continue;
        };
        leaves.append(&mut ls);
        if opts.report {
            changes.push(Change {
                rule: "sanitizeImages",
                path: path_text(&s.part.1),
                detail,
            });
        }
    }
    if leaves.is_empty() {
        return;
    }
    // Document order on bytes (a media type may come before its data, a Responses item's
    // `output` before its `content`); the splice needs it, and a stable sort keeps the leaves under
    // one container together for the object appliers.
    leaves.sort_by_key(|l| l.span.as_ref().map(|r| r.start));
    let plan = d.plan.get_or_insert_with(|| BodyPlan {
        key: protocol.key(),
        ..BodyPlan::default()
    });
    plan.leaves = leaves;
    changes.append(&mut d.changes);
    d.changes = changes;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::wire::sanitize_bytes;

    /// A real 24×16 PNG (the fixtures' small image).
    fn png() -> String {
        let all: Value = serde_json::from_str(super::super::fixtures::FIXTURES[1]).unwrap();
        let cases = all["cases"].as_array().unwrap();
        let case = cases
            .iter()
            .find(|c| {
                c["name"]
                    .as_str()
                    .unwrap()
                    .starts_with("PNG bytes declared")
            })
            .unwrap();
        case["expected"]["messages"][2]["content"][0]["content"][1]["source"]["data"]
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn the_limits_are_the_callers_else_the_provider_s() {
        let none = ImageOptions::default();
        let a = limits(&none, Protocol::Anthropic, 3);
        assert_eq!((a.max_bytes, a.max_dimension_px), (3_932_160, 8000));
        let many = limits(&none, Protocol::Anthropic, 21);
        assert_eq!(many.max_dimension_px, 2000);
        let o = limits(&none, Protocol::OpenAiChat, 21);
        assert_eq!((o.max_bytes, o.max_dimension_px), (20_000_000, 1200));
        let given = ImageOptions {
            max_dimension_px: Some(640),
            ..none
        };
        assert_eq!(
            limits(&given, Protocol::Anthropic, 21).max_dimension_px,
            640
        );
        assert_eq!(
            limits(&none, Protocol::Gemini, 1).release,
            crate::openclaw::default_version()
        );
    }

    /// A re-encoded image replaces only its payload string's bytes; a data URL is written whole.
    #[test]
    fn only_the_payload_s_bytes_change() {
        let png = png();
        let text = format!(
            "{{ \"contents\" : [ {{\"role\":\"user\", \"parts\": [ {{\"text\": \"看图\\u0021\"}},\n  {{\"inlineData\": {{ \"data\" : \"{png}\", \"mimeType\" : \"image/png\" }} }} ] }} ], \"n\": 1.50 }}"
        );
        let opts = WireOptions {
            images: ImageOptions {
                max_dimension_px: Some(16),
                ..ImageOptions::default()
            },
            report: true,
            ..WireOptions::default()
        };
        let (out, changes) = sanitize_bytes(text.as_bytes(), Protocol::Gemini, &opts).unwrap();
        let out = String::from_utf8(out.unwrap()).unwrap();
        let at = text.find(&png).unwrap();
        assert_eq!(&out[..at], &text[..at]);
        let rest = &out[at..];
        let end = rest.find('"').unwrap();
        assert!(rest[..end].starts_with("/9j/"), "a JPEG: {}", &rest[..20]);
        assert_eq!(
            &rest[end..],
            "\", \"mimeType\" : \"image/jpeg\" } } ] } ], \"n\": 1.50 }"
        );
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].path, "contents[0].parts[1]");
        assert!(
            changes[0]
                .detail
                .starts_with("image re-encoded to fit the size limits (16×"),
            "{}",
            changes[0].detail
        );
    }

    /// Many images, most kept from their head, some omitted: time grows with the body.
    #[test]
    fn many_images_take_linear_time() {
        let png = png();
        let make = |n: usize| {
            let mut msgs = Vec::new();
            let mut size = 0;
            let mut i = 0;
            while size < n {
                let data = if i % 4 == 3 { "5Zu+54mH!!" } else { &png };
                let m = format!(
                    r#"{{"role":"user","content":[{{"type":"text","text":"第{i}张"}},{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"{data}"}}}}]}}"#
                );
                size += m.len();
                msgs.push(m);
                i += 1;
            }
            format!(r#"{{"model":"m","messages":[{}]}}"#, msgs.join(","))
        };
        crate::response::linearity::assert_grows_linearly("wire images", &make, &|t| {
            let (out, _) =
                sanitize_bytes(t.as_bytes(), Protocol::Anthropic, &WireOptions::default()).unwrap();
            assert!(out.is_some());
        });
    }
}
