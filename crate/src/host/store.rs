//! The host's store: every byte the host keeps lives in one `object_store` (a local directory, S3
//! or an S3-compatible server, GCS, Azure), so several instances serve one store.
//!
//! Layout (keys under the store's prefix):
//! - `files/{id}`: the replay's bytes, immutable (the id is a hash of them).
//! - `replays/{id}.json`: its [`ReplayRecord`], written once after the file.
//! - `index/{newest-first key}-{id}`: an empty object per listed replay, written last; the list is
//!   read from these names (one listing, no file decoded) and a replay is listed only once its file
//!   and record are in place.
//! - `posters/{id}/...`: the posters of that replay (the poster's part).
//! - `tmp/{nonce}`: uploads being checked; removed or renamed into `files/` when the check ends.

use super::record::ReplayRecord;
use bytes::Bytes;
use futures_util::TryStreamExt;
use object_store::path::Path;
use object_store::{ObjectStore, PutMode, PutOptions, PutPayload};
use std::sync::Arc;

/// The store, cheap to clone.
#[derive(Clone)]
pub struct Store {
    inner: Arc<dyn ObjectStore>,
    /// The directory of a local store (`--data`, `file://`): its files are read straight from the
    /// disk (one blocking step, not object_store's two), [`Store::read_local`].
    local: Option<Arc<std::path::PathBuf>>,
}

/// A store failure, as the store said it (answered 503).
#[derive(Debug)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the store failed: {}", self.0)
    }
}

impl From<object_store::Error> for StoreError {
    fn from(e: object_store::Error) -> Self {
        StoreError(e.to_string())
    }
}

/// True when `id` is a content id: exactly 32 lowercase hex digits. Every id taken from a path is
/// checked with this before it names an object (no `..`, no `/`, no control characters).
pub fn valid_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl Store {
    pub fn new(inner: Arc<dyn ObjectStore>) -> Self {
        Store { inner, local: None }
    }

    /// A local directory store (object_store's `LocalFileSystem` over `dir`).
    fn local_dir(dir: std::path::PathBuf) -> Result<Self, String> {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let fs = object_store::local::LocalFileSystem::new_with_prefix(&dir).map_err(|e| e.to_string())?;
        Ok(Store { inner: Arc::new(fs), local: Some(Arc::new(dir)) })
    }

    /// Where object `path` lies on the disk, for a local store; `None` for any other store.
    pub fn local_file(&self, path: &Path) -> Option<std::path::PathBuf> {
        let dir = self.local.as_ref()?;
        Some(path.parts().fold(dir.to_path_buf(), |p, part| p.join(part.as_ref())))
    }

    /// Bytes `[start, end)` of stored file `id` (a valid id) read from a local store's disk, with
    /// the file's size; `None` when the store is not local. The range is clamped to the file by
    /// the caller ([`LocalRead`] says what it found).
    pub async fn read_local(&self, id: &str, range: Option<object_store::GetRange>, max: u64) -> Option<LocalRead> {
        let path = self.local_file(&Store::file_path(id))?;
        let read = tokio::task::spawn_blocking(move || LocalRead::read(&path, range, max)).await;
        Some(read.unwrap_or_else(|e| LocalRead::Failed(e.to_string())))
    }

    /// The store named by `--store` (`file:///dir`, `s3://bucket/prefix`, `gs://bucket/prefix`,
    /// `az://container/prefix`; the cloud ones configured from the usual environment variables, e.g.
    /// `AWS_ACCESS_KEY_ID`, `AWS_REGION`, `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`), or a directory under
    /// `data` when `url` is `None`.
    pub fn open(url: Option<&str>, data: &std::path::Path) -> Result<Self, String> {
        use object_store::prefix::PrefixStore;
        let Some(url) = url else {
            return Store::local_dir(data.join("store"));
        };
        let parsed = url::Url::parse(url).map_err(|e| format!("--store {url}: {e}"))?;
        let prefix = Path::from(parsed.path().trim_matches('/'));
        let inner: Arc<dyn ObjectStore> = match parsed.scheme() {
            "file" => {
                let dir = parsed.to_file_path().map_err(|()| format!("--store {url}: not a local path"))?;
                return Store::local_dir(dir);
            }
            "s3" | "s3a" => {
                let s = object_store::aws::AmazonS3Builder::from_env().with_url(url).build();
                Arc::new(PrefixStore::new(s.map_err(|e| format!("--store {url}: {e}"))?, prefix))
            }
            "gs" => {
                let s = object_store::gcp::GoogleCloudStorageBuilder::from_env().with_url(url).build();
                Arc::new(PrefixStore::new(s.map_err(|e| format!("--store {url}: {e}"))?, prefix))
            }
            "az" | "azure" | "abfs" | "abfss" => {
                let s = object_store::azure::MicrosoftAzureBuilder::from_env().with_url(url).build();
                Arc::new(PrefixStore::new(s.map_err(|e| format!("--store {url}: {e}"))?, prefix))
            }
            other => return Err(format!("--store {url}: unknown scheme {other:?} (file, s3, gs, az)")),
        };
        Ok(Store::new(inner))
    }

    /// The `object_store` underneath (for parts that store objects of their own, e.g. posters under
    /// [`Store::poster_prefix`]).
    pub fn object_store(&self) -> &Arc<dyn ObjectStore> {
        &self.inner
    }

    pub fn file_path(id: &str) -> Path {
        Path::from(format!("files/{id}"))
    }
    pub fn record_path(id: &str) -> Path {
        Path::from(format!("replays/{id}.json"))
    }
    /// Where the posters of replay `id` live (`posters/{id}/…`); removed with the replay.
    pub fn poster_prefix(id: &str) -> Path {
        Path::from(format!("posters/{id}"))
    }
    pub fn tmp_path(nonce: &str) -> Path {
        Path::from(format!("tmp/{nonce}"))
    }
    /// The list entry: names sort newest first (the inverted upload time in milliseconds).
    fn index_path(uploaded_ms: u64, id: &str) -> Path {
        Path::from(format!("index/{:020}-{id}", u64::MAX - uploaded_ms))
    }

    /// The record of `id`, `None` when there is none.
    pub async fn record(&self, id: &str) -> Result<Option<ReplayRecord>, StoreError> {
        if !valid_id(id) {
            return Ok(None);
        }
        self.read_record(&Self::record_path(id)).await
    }

    /// The record at `path`, `None` when there is none.
    async fn read_record(&self, path: &Path) -> Result<Option<ReplayRecord>, StoreError> {
        match self.inner.get(path).await {
            Ok(r) => {
                let bytes = r.bytes().await?;
                serde_json::from_slice(&bytes).map(Some).map_err(|e| StoreError(format!("{path} does not parse: {e}")))
            }
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Writes the record, then the list entry (the replay is listed from then on). `Ok(false)` when
    /// a record for this id was there already (another upload of the same bytes won the race).
    pub async fn publish(&self, rec: &ReplayRecord, uploaded_ms: u64) -> Result<bool, StoreError> {
        let json = serde_json::to_vec(rec).map_err(|e| StoreError(e.to_string()))?;
        let path = Self::record_path(&rec.id);
        let create = PutOptions { mode: PutMode::Create, ..Default::default() };
        match self.inner.put_opts(&path, PutPayload::from(json.clone()), create).await {
            Ok(_) => {}
            Err(object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }) => {
                return Ok(false)
            }
            // A store without conditional writes: a head then a plain put (a narrow race: the later
            // of two simultaneous first uploads of one file keeps its delete token).
            Err(object_store::Error::NotImplemented | object_store::Error::NotSupported { .. }) => {
                if self.inner.head(&path).await.is_ok() {
                    return Ok(false);
                }
                self.inner.put(&path, PutPayload::from(json)).await?;
            }
            Err(e) => return Err(e.into()),
        }
        self.inner.put(&Self::index_path(uploaded_ms, &rec.id), PutPayload::from(Bytes::new())).await?;
        Ok(true)
    }

    /// The ids listed, newest first.
    pub async fn listed_ids(&self) -> Result<Vec<String>, StoreError> {
        let mut names: Vec<String> = self
            .inner
            .list(Some(&Path::from("index")))
            .map_ok(|m| m.location.filename().unwrap_or_default().to_string())
            .try_collect()
            .await?;
        names.sort_unstable();
        let mut seen = std::collections::HashSet::new();
        Ok(names
            .into_iter()
            .filter_map(|n| n.rsplit_once('-').map(|(_, id)| id.to_string()))
            .filter(|id| valid_id(id) && seen.insert(id.clone()))
            .collect())
    }

    /// Page `page` (from 0) of the list, `per_page` records, newest first; the next page's number
    /// when there is one.
    pub async fn list(&self, page: usize, per_page: usize) -> Result<(Vec<ReplayRecord>, Option<usize>), StoreError> {
        let ids = self.listed_ids().await?;
        let start = page.saturating_mul(per_page);
        let page_ids: Vec<&String> = ids.iter().skip(start).take(per_page).collect();
        let reads = page_ids.iter().map(|id| self.record(id));
        let records = futures_util::future::try_join_all(reads).await?;
        let next = (start.saturating_add(per_page) < ids.len()).then_some(page + 1);
        Ok((records.into_iter().flatten().collect(), next))
    }

    /// Removes a replay, shown or hidden: first its list entry (it stops being listed), then its
    /// posters, file and record. Objects already gone are not an error.
    pub async fn remove(&self, id: &str) -> Result<(), StoreError> {
        let entries = self.index_entries(id).await?;
        let posters: Vec<Path> =
            self.inner.list(Some(&Self::poster_prefix(id))).map_ok(|m| m.location).try_collect().await?;
        let rest =
            [Self::file_path(id), Self::record_path(id), Self::hidden_file_path(id), Self::hidden_record_path(id)];
        for p in entries.iter().chain(&posters).chain(&rest) {
            self.delete_quietly(p).await?;
        }
        Ok(())
    }

    /// The list entries of `id` (one; two only mid-race).
    async fn index_entries(&self, id: &str) -> Result<Vec<Path>, StoreError> {
        let suffix = format!("-{id}");
        Ok(self
            .inner
            .list(Some(&Path::from("index")))
            .try_filter(|m| std::future::ready(m.location.filename().is_some_and(|n| n.ends_with(&suffix))))
            .map_ok(|m| m.location)
            .try_collect()
            .await?)
    }

    async fn delete_quietly(&self, p: &Path) -> Result<(), StoreError> {
        match self.inner.delete(p).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Where a hidden replay's file and record wait (nothing reads there but moderation).
    fn hidden_file_path(id: &str) -> Path {
        Path::from(format!("hidden/files/{id}"))
    }
    fn hidden_record_path(id: &str) -> Path {
        Path::from(format!("hidden/replays/{id}.json"))
    }

    /// The record of a hidden replay `id`, `None` when none is hidden.
    pub async fn hidden_record(&self, id: &str) -> Result<Option<ReplayRecord>, StoreError> {
        if !valid_id(id) {
            return Ok(None);
        }
        self.read_record(&Self::hidden_record_path(id)).await
    }

    /// Hides replay `id`: unlisted, its posters removed, its file and record moved aside, so the
    /// gallery, `/r/`, `/files/`, the card, the poster and oEmbed all answer 404 as for none.
    /// `Ok(false)` when there is no such (shown) replay.
    pub async fn hide(&self, id: &str) -> Result<bool, StoreError> {
        if self.record(id).await?.is_none() {
            return Ok(false);
        }
        for p in self.index_entries(id).await? {
            self.delete_quietly(&p).await?;
        }
        let posters: Vec<Path> =
            self.inner.list(Some(&Self::poster_prefix(id))).map_ok(|m| m.location).try_collect().await?;
        for p in &posters {
            self.delete_quietly(p).await?;
        }
        // The file first, the record last: a hide cut short leaves a record whose file is gone
        // (answered 404) or one to hide again, never a hidden replay that shows.
        self.inner.rename(&Self::file_path(id), &Self::hidden_file_path(id)).await?;
        self.inner.rename(&Self::record_path(id), &Self::hidden_record_path(id)).await?;
        Ok(true)
    }

    /// Shows a hidden replay again, listed at its upload time. `Ok(false)` when none is hidden.
    pub async fn show(&self, id: &str) -> Result<bool, StoreError> {
        let Some(rec) = self.hidden_record(id).await? else { return Ok(false) };
        self.inner.rename(&Self::hidden_file_path(id), &Self::file_path(id)).await?;
        self.inner.rename(&Self::hidden_record_path(id), &Self::record_path(id)).await?;
        let ms = rec.uploaded.saturating_mul(1000);
        self.inner.put(&Self::index_path(ms, id), PutPayload::from(Bytes::new())).await?;
        Ok(true)
    }

    /// The ids and upload times (Unix seconds) of every listed replay, oldest first, read from the
    /// list's names alone (host/retention.rs).
    pub async fn listed_by_age(&self) -> Result<Vec<(String, u64)>, StoreError> {
        let mut names: Vec<String> = self
            .inner
            .list(Some(&Path::from("index")))
            .map_ok(|m| m.location.filename().unwrap_or_default().to_string())
            .try_collect()
            .await?;
        names.sort_unstable();
        names.reverse();
        Ok(names
            .into_iter()
            .filter_map(|n| {
                let (inv, id) = n.rsplit_once('-')?;
                let ms = u64::MAX.checked_sub(inv.parse::<u64>().ok()?)?;
                valid_id(id).then(|| (id.to_string(), ms / 1000))
            })
            .collect())
    }
}

/// What [`Store::read_local`] found.
#[derive(Debug)]
pub enum LocalRead {
    /// No such file.
    NotFound,
    /// The range lies past the file's end (or is empty): 416 with the size.
    Unsatisfiable { size: u64 },
    /// `[start, end)` of a file of `size` bytes; `bytes` holds them when they are at most `max`
    /// (the caller streams a larger range through the object store).
    Found { size: u64, start: u64, end: u64, bytes: Option<Bytes> },
    /// The disk failed.
    Failed(String),
}

impl LocalRead {
    fn read(path: &std::path::Path, range: Option<object_store::GetRange>, max: u64) -> LocalRead {
        use object_store::GetRange;
        use std::io::{Read, Seek, SeekFrom};
        let mut f = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return LocalRead::NotFound,
            Err(e) => return LocalRead::Failed(e.to_string()),
        };
        let size = match f.metadata() {
            Ok(m) => m.len(),
            Err(e) => return LocalRead::Failed(e.to_string()),
        };
        let is_range = range.is_some();
        let (start, end) = match range {
            None => (0, size),
            Some(GetRange::Bounded(r)) => (r.start, r.end.min(size)),
            Some(GetRange::Offset(a)) => (a, size),
            Some(GetRange::Suffix(n)) if n > 0 => (size.saturating_sub(n), size),
            Some(GetRange::Suffix(_)) => return LocalRead::Unsatisfiable { size },
        };
        if is_range && start >= end {
            return LocalRead::Unsatisfiable { size };
        }
        let len = end.saturating_sub(start);
        if len > max {
            return LocalRead::Found { size, start, end, bytes: None };
        }
        let Ok(n) = usize::try_from(len) else { return LocalRead::Failed(format!("a range of {len} bytes")) };
        let mut buf = vec![0u8; n];
        if let Err(e) = f.seek(SeekFrom::Start(start)).and_then(|_| f.read_exact(&mut buf)) {
            return LocalRead::Failed(e.to_string());
        }
        LocalRead::Found { size, start, end, bytes: Some(Bytes::from(buf)) }
    }
}
