//! The replay host when its store fails: a store that fails mid-upload (a full disk, an object
//! store answering 500) gives a clear 503 and leaves no listed replay and nothing stored.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod host_common;

use async_trait::async_trait;
use futures_util::stream::BoxStream;
use host_common::*;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{
    GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore, PutMultipartOptions, PutOptions,
    PutPayload, PutResult, UploadPart,
};
use replay_player::host::store::Store;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Where the store fails.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    /// Every part of a multipart upload (the body's temporary object): a disk that is full.
    Parts,
    /// The record's put (after the file was published).
    Records,
    /// Renames into `files/`.
    Publish,
}

#[derive(Debug)]
struct Faulty {
    inner: LocalFileSystem,
    fault: Fault,
    on: Arc<AtomicBool>,
}

impl std::fmt::Display for Faulty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Faulty({:?})", self.fault)
    }
}

fn failed(what: &str) -> object_store::Error {
    object_store::Error::Generic { store: "faulty", source: format!("injected: {what}").into() }
}

#[derive(Debug)]
struct FailingUpload(Box<dyn MultipartUpload>);

#[async_trait]
impl MultipartUpload for FailingUpload {
    fn put_part(&mut self, _data: PutPayload) -> UploadPart {
        Box::pin(async { Err(failed("No space left on device")) })
    }
    async fn complete(&mut self) -> object_store::Result<PutResult> {
        Err(failed("No space left on device"))
    }
    async fn abort(&mut self) -> object_store::Result<()> {
        self.0.abort().await
    }
}

#[async_trait]
impl ObjectStore for Faulty {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        if self.on.load(Ordering::SeqCst) && self.fault == Fault::Records && location.as_ref().starts_with("replays/") {
            return Err(failed("HTTP 500"));
        }
        self.inner.put_opts(location, payload, opts).await
    }
    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        let up = self.inner.put_multipart_opts(location, opts).await?;
        if self.on.load(Ordering::SeqCst) && self.fault == Fault::Parts {
            return Ok(Box::new(FailingUpload(up)));
        }
        Ok(up)
    }
    async fn get_opts(&self, location: &Path, options: GetOptions) -> object_store::Result<GetResult> {
        self.inner.get_opts(location, options).await
    }
    async fn delete(&self, location: &Path) -> object_store::Result<()> {
        self.inner.delete(location).await
    }
    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }
    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }
    async fn copy(&self, from: &Path, to: &Path) -> object_store::Result<()> {
        self.inner.copy(from, to).await
    }
    async fn rename(&self, from: &Path, to: &Path) -> object_store::Result<()> {
        if self.on.load(Ordering::SeqCst) && self.fault == Fault::Publish {
            return Err(failed("HTTP 503 SlowDown"));
        }
        self.inner.rename(from, to).await
    }
    async fn copy_if_not_exists(&self, from: &Path, to: &Path) -> object_store::Result<()> {
        self.inner.copy_if_not_exists(from, to).await
    }
}

async fn check(fault: Fault, size_seconds: f64) {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    std::fs::create_dir_all(&store_dir).unwrap();
    let on = Arc::new(AtomicBool::new(true));
    let faulty = Faulty { inner: LocalFileSystem::new_with_prefix(&store_dir).unwrap(), fault, on: on.clone() };
    let h = start_with(dir.path(), Store::new(Arc::new(faulty)), |_| {}).await;
    let c = client();
    let bytes = dogfight(50, 40, size_seconds);
    let (s, v) = upload(&c, &h.url, bytes.clone()).await;
    assert_eq!(s, 503, "{fault:?} ({} bytes): {v}", bytes.len());
    let msg = v["error"].as_str().unwrap();
    assert!(msg.starts_with("the store failed") && msg.contains("injected"), "{msg}");
    h.settled(1).await;
    assert!(listed(&c, &h.url).await.is_empty(), "{fault:?}");
    assert_nothing_stored(dir.path());
    // The store recovers: the same upload is taken and listed.
    on.store(false, Ordering::SeqCst);
    let (s, v) = upload(&c, &h.url, bytes.clone()).await;
    assert_eq!(s, 201, "{v}");
    assert_eq!(listed(&c, &h.url).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_fails_mid_upload_is_503_and_keeps_nothing() {
    // A larger file and a small one (whose only part is sent at completion).
    check(Fault::Parts, 120.0).await;
    check(Fault::Parts, 3.0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_fails_at_publishing_is_503_and_keeps_nothing() {
    check(Fault::Publish, 3.0).await;
    check(Fault::Records, 3.0).await;
}
