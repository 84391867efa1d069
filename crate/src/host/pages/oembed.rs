//! oEmbed 1.0 (oembed.com): `GET /oembed?url=<a /r/ link>&maxwidth=&maxheight=&format=json` answers
//! `type: "rich"` whose `html` is an iframe of the player's `embed.html` on that replay at that
//! link's moment (docs/embedding.md "Embedding"). Never larger than `maxwidth` × `maxheight`; a URL
//! that is not one of this host's `/r/` links is 404, a format other than JSON 501.

use serde::Serialize;

use super::{attr, card, moment::Moment, Site, POSTER_HEIGHT, POSTER_WIDTH};
use crate::host::record::ReplayRecord;

/// The iframe's size when the consumer asks for none (16:9, as the embed's default aspect).
pub const DEFAULT_WIDTH: u32 = 640;
/// See [`DEFAULT_WIDTH`].
pub const DEFAULT_HEIGHT: u32 = 360;
/// `cache_age`: records never change; a consumer may keep the answer a day.
pub const CACHE_AGE: u32 = 86_400;

/// The oEmbed answer (JSON by serde: every string escaped as JSON).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Oembed {
    pub version: &'static str,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub title: String,
    pub provider_name: String,
    pub provider_url: String,
    pub html: String,
    pub width: u32,
    pub height: u32,
    pub thumbnail_url: String,
    pub thumbnail_width: u32,
    pub thumbnail_height: u32,
    pub cache_age: u32,
}

/// Why an oEmbed request gets no answer.
#[derive(Clone, Debug, PartialEq)]
pub enum OembedError {
    /// 400: no `url`, or `maxwidth` / `maxheight` not a number.
    BadRequest(String),
    /// 404: not a `/r/{id}` link of this host (or no such replay: the caller's lookup).
    NotFound(String),
    /// 501: a format other than `json`.
    NotImplemented(String),
}

/// What the request asks for: the replay's id and the link's moment, the size limits.
#[derive(Clone, Debug, PartialEq)]
pub struct OembedRequest {
    pub id: String,
    pub moment: Moment,
    pub maxwidth: Option<u32>,
    pub maxheight: Option<u32>,
}

/// Reads the endpoint's query: `url` must be a `/r/{id}` link on this host's public origin, with
/// `id` 32 lowercase hex digits; `format` absent or `json`.
pub fn parse_request(site: &Site, query: &str) -> Result<OembedRequest, OembedError> {
    let mut url = None;
    let mut format = None;
    let mut maxwidth = None;
    let mut maxheight = None;
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        match name.as_ref() {
            "url" if url.is_none() => url = Some(value.into_owned()),
            "format" if format.is_none() => format = Some(value.into_owned()),
            "maxwidth" if maxwidth.is_none() => maxwidth = Some(size(&value, "maxwidth")?),
            "maxheight" if maxheight.is_none() => maxheight = Some(size(&value, "maxheight")?),
            _ => {}
        }
    }
    if let Some(f) = format.filter(|f| f != "json") {
        let shown: String = f.chars().take(16).collect();
        return Err(OembedError::NotImplemented(format!("format {shown:?} is not served: only json")));
    }
    let url = url.ok_or_else(|| OembedError::BadRequest("no url: /oembed?url=<a /r/ link>".to_string()))?;
    let (id, moment) = page_link(site, &url)?;
    Ok(OembedRequest { id, moment, maxwidth, maxheight })
}

fn size(value: &str, name: &str) -> Result<u32, OembedError> {
    value.trim().parse().map_err(|_| {
        let shown: String = value.chars().take(16).collect();
        OembedError::BadRequest(format!("{name} {shown:?} is not a whole number of pixels"))
    })
}

/// The id and moment of a `/r/{id}` link on `site`'s public origin.
pub fn page_link(site: &Site, link: &str) -> Result<(String, Moment), OembedError> {
    let not_ours = || OembedError::NotFound("not a replay link of this host".to_string());
    let link = url::Url::parse(link).map_err(|_| not_ours())?;
    let public = url::Url::parse(&site.public_url).map_err(|_| not_ours())?;
    if link.origin() != public.origin() {
        return Err(not_ours());
    }
    let id = link.path().strip_prefix("/r/").ok_or_else(not_ours)?;
    if !is_id(id) {
        return Err(not_ours());
    }
    Ok((id.to_string(), Moment::from_query(link.query().unwrap_or_default())))
}

/// A content id: 32 lowercase hex digits.
pub fn is_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The answer for `rec` (the replay `req.id` names).
pub fn oembed(site: &Site, rec: &ReplayRecord, req: &OembedRequest) -> Oembed {
    let (width, height) = fit(req.maxwidth, req.maxheight);
    let title = card(rec, &req.moment).title;
    let html = format!(
        "<iframe src=\"{}\" width=\"{width}\" height=\"{height}\" allow=\"fullscreen\" loading=\"lazy\" title=\"{}\"></iframe>",
        attr(&site.embed_url(&rec.id, &req.moment)),
        attr(&title)
    );
    Oembed {
        version: "1.0",
        kind: "rich",
        title,
        provider_name: site.name.clone(),
        provider_url: format!("{}/", site.public_url),
        html,
        width,
        height,
        thumbnail_url: site.poster_url(rec, &req.moment),
        thumbnail_width: POSTER_WIDTH,
        thumbnail_height: POSTER_HEIGHT,
        cache_age: CACHE_AGE,
    }
}

/// The iframe's size: 640 × 360, made smaller (keeping 16:9) to fit `maxwidth` and `maxheight`;
/// never larger than either, at least 1 × 1.
pub fn fit(maxwidth: Option<u32>, maxheight: Option<u32>) -> (u32, u32) {
    let (mut w, mut h) = (u64::from(DEFAULT_WIDTH), u64::from(DEFAULT_HEIGHT));
    if let Some(mw) = maxwidth.map(u64::from).filter(|&mw| mw < w) {
        w = mw;
        h = w * 9 / 16;
    }
    if let Some(mh) = maxheight.map(u64::from).filter(|&mh| mh < h) {
        h = mh;
        w = h * 16 / 9;
    }
    let clamp = |v: u64, max: Option<u32>| {
        let v = u32::try_from(v).unwrap_or(u32::MAX).max(1);
        max.map_or(v, |m| v.min(m.max(1)))
    };
    (clamp(w, maxwidth), clamp(h, maxheight))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::pages::tests::hostile_record;

    fn site() -> Site {
        Site::new("https://replays.example", "/", "Replays")
    }

    fn request(q: &str) -> Result<OembedRequest, OembedError> {
        parse_request(&site(), q)
    }

    const ID: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn reads_the_link_and_its_moment() {
        let link = format!("https://replays.example/r/{ID}?t=95&camera=follow");
        let q = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("url", &link)
            .append_pair("maxwidth", "400")
            .finish();
        let r = request(&q).unwrap();
        assert_eq!(r.id, ID);
        assert_eq!(r.moment.query(), "t=95&camera=follow");
        assert_eq!((r.maxwidth, r.maxheight), (Some(400), None));
    }

    #[test]
    fn refuses_what_it_does_not_serve() {
        let enc = |u: &str| url::form_urlencoded::Serializer::new(String::new()).append_pair("url", u).finish();
        assert!(matches!(
            request(&format!("{}&format=xml", enc(&format!("https://replays.example/r/{ID}")))),
            Err(OembedError::NotImplemented(_))
        ));
        assert!(matches!(request("format=json"), Err(OembedError::BadRequest(_))));
        assert!(matches!(
            request(&format!("{}&maxwidth=wide", enc(&format!("https://replays.example/r/{ID}")))),
            Err(OembedError::BadRequest(_))
        ));
        for bad in [
            format!("https://other.example/r/{ID}"),
            format!("http://replays.example/r/{ID}"),
            format!("https://replays.example:444/r/{ID}"),
            format!("https://replays.example/x/{ID}"),
            format!("https://replays.example/r/{ID}/poster.png"),
            "https://replays.example/r/..%2f..%2fetc".to_string(),
            "https://replays.example/r/0123456789ABCDEF0123456789ABCDEF".to_string(),
            "not a url".to_string(),
        ] {
            assert!(matches!(request(&enc(&bad)), Err(OembedError::NotFound(_))), "{bad}");
        }
    }

    #[test]
    fn never_larger_than_asked() {
        assert_eq!(fit(None, None), (640, 360));
        assert_eq!(fit(Some(400), None), (400, 225));
        assert_eq!(fit(None, Some(180)), (320, 180));
        assert_eq!(fit(Some(400), Some(100)), (177, 100));
        assert_eq!(fit(Some(2000), Some(2000)), (640, 360));
        assert_eq!(fit(Some(0), Some(0)), (1, 1));
        for (mw, mh) in [(1, 1), (7, 500), (500, 7), (641, 359), (639, 361), (u32::MAX, 3)] {
            let (w, h) = fit(Some(mw), Some(mh));
            assert!(w <= mw && h <= mh && w >= 1 && h >= 1, "{mw}x{mh} -> {w}x{h}");
        }
    }

    #[test]
    fn a_rich_answer_whose_strings_are_escaped() {
        let rec = hostile_record();
        let link = format!("https://replays.example/r/{ID}?t=95&follow=%3Cb%3E");
        let q = url::form_urlencoded::Serializer::new(String::new()).append_pair("url", &link).finish();
        let o = oembed(&site(), &rec, &request(&q).unwrap());
        assert_eq!((o.version, o.kind, o.width, o.height), ("1.0", "rich", 640, 360));
        assert_eq!(o.thumbnail_url, format!("https://replays.example/r/{ID}/poster.png?t=95.0"));
        assert_eq!(
            o.html,
            format!(
                "<iframe src=\"https://replays.example/embed.html?url=https%3A%2F%2Freplays.example%2Ffiles%2F{ID}&amp;t=95&amp;follow=%3Cb%3E\" width=\"640\" height=\"360\" allow=\"fullscreen\" loading=\"lazy\" title=\"&lt;img src=x onerror=alert(1)&gt; vs &quot;Red&quot; &amp; 'Blue'\"></iframe>"
            )
        );
        // One element in the html: the iframe.
        assert_eq!(o.html.matches('<').count(), 2);
        let json = serde_json::to_value(&o).unwrap();
        assert_eq!(json["title"], rec.title.as_str());
        assert_eq!(json["type"], "rich");
        assert_eq!(json["provider_url"], "https://replays.example/");
    }
}
