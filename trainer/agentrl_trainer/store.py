"""The trainer's side of the artifact store: a run's prefix, worked on through a local folder.

A run is named by its store reference (`runRef`, shared/paths/store-refs.ts):

    file:///ABSOLUTE/PATH/runs/<run>     a folder store: the run folder is worked on in place
    s3://BUCKET/PREFIX/runs/<run>        an S3-compatible store (boto3; endpoint and credentials from
                                         AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION)

With S3 the step works in the store cache (AGENTRL_STORE_CACHE, default ~/.cache/agentrl/store, the
layout activities/store/local-copy.ts uses: <cache>/<bucket>/<key>, ETags under <cache>/.etags):
checkpoint N-1 and the batch are fetched (again only when their ETag changed), checkpoint N and
policy N are uploaded (multipart uploads appear whole or not at all), and the step record is
written last with a conditional put (`If-None-Match: *`): of two attempts that both finish, one
record stands and the other attempt returns it. The run lock is a lease object (`.train.lock`)
taken and renewed with conditional writes, so two hosts never run a step of one run at once.
The cache may be deleted at any time: what is missing is fetched again.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from .checkpoints import STEP_RECORD_FORMAT_VERSION, RunBusyError, read_step_record, run_lock, write_step_record
from .metrics import STORE_BYTES

LEASE_KEY = ".train.lock"
# a lease not renewed for this long is taken over (its holder died); renewed every third of it
LEASE_SECONDS = float(os.environ.get("AGENTRL_TRAIN_LEASE_S") or 30)
_S3_URL = re.compile(r"^s3://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])/(.+)$")
_CHECKPOINT_NAME = re.compile(r"^step-(\d+)(?:\.pt)?$")


class StoreRefError(ValueError):
    """A reference that names nothing, or nothing this trainer can read."""


def cache_root() -> Path:
    """The store cache (shared with the TypeScript side's layout)."""
    explicit = os.environ.get("AGENTRL_STORE_CACHE")
    return Path(explicit) if explicit else Path.home() / ".cache" / "agentrl" / "store"


def file_ref(path: str | os.PathLike[str]) -> str:
    return f"file://{Path(path).resolve()}"


def local_path_of(ref: str) -> Path | None:
    """The path of a `file://` reference (or a plain absolute path); None for other schemes."""
    if ref.startswith("file://"):
        return Path(unquote(ref[len("file://") :]))
    if ref.startswith("/"):
        return Path(ref)
    return None


def _s3_client() -> Any:
    import boto3  # only an S3 store needs it
    from botocore.config import Config

    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    return boto3.client(
        "s3",
        endpoint_url=endpoint or None,
        region_name=os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1",
        config=Config(
            s3={"addressing_style": "path"} if endpoint else {},
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
            retries={"max_attempts": 5, "mode": "standard"},
        ),
    )


def _split(ref: str) -> tuple[str, str]:
    match = _S3_URL.match(ref)
    if not match or any(part in ("", "..") for part in match.group(2).rstrip("/").split("/")):
        raise StoreRefError(f"not an S3 object URL (s3://BUCKET/KEY): {ref!r}")
    return match.group(1), match.group(2).rstrip("/")


def _status(error: Exception) -> int | None:
    response = getattr(error, "response", None) or {}
    return response.get("ResponseMetadata", {}).get("HTTPStatusCode")


class _S3Objects:
    """Download (ETag-checked, into the cache) and upload of one bucket's objects."""

    def __init__(self, bucket: str) -> None:
        self.bucket = bucket
        self.client = _s3_client()
        self.cache = cache_root()

    def local(self, key: str) -> Path:
        return self.cache / self.bucket / key

    def head(self, key: str) -> str | None:
        try:
            return self.client.head_object(Bucket=self.bucket, Key=key)["ETag"]
        except Exception as error:
            if _status(error) == 404:
                return None
            raise

    def listing(self, prefix: str) -> list[tuple[str, str]]:
        objects: list[tuple[str, str]] = []
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
            objects.extend((item["Key"], item["ETag"]) for item in page.get("Contents", []))
        return objects

    def names_under(self, prefix: str) -> list[str]:
        """The entries directly under `prefix/` (objects and sub-folders), as a folder listing."""
        names: set[str] = set()
        for page in self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=f"{prefix}/", Delimiter="/"
        ):
            names.update(item["Key"][len(prefix) + 1 :] for item in page.get("Contents", []))
            names.update(common["Prefix"][len(prefix) + 1 :].rstrip("/") for common in page.get("CommonPrefixes", []))
        return sorted(name for name in names if name)

    def fetch(self, key: str) -> Path | None:
        """The object `key`, or every object under `key/`, in the cache; None when there is neither."""
        etag = self.head(key)
        if etag is not None:
            self._download(key, etag)
            return self.local(key)
        objects = self.listing(f"{key}/")
        if not objects:
            return None
        for object_key, object_etag in objects:
            self._download(object_key, object_etag)
        return self.local(key)

    def _download(self, key: str, etag: str) -> None:
        path, tag = self.local(key), self.cache / ".etags" / self.bucket / key
        if path.is_file() and tag.is_file() and tag.read_text() == etag:
            os.utime(path)  # recently used
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".tmp-{uuid.uuid4().hex[:12]}")
        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=key)
            with open(temporary, "wb") as handle:
                for chunk in answer["Body"].iter_chunks(1 << 20):
                    handle.write(chunk)
                    STORE_BYTES.labels("s3", "get").inc(len(chunk))
            os.replace(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)
        tag.parent.mkdir(parents=True, exist_ok=True)
        tag.write_text(answer.get("ETag", etag))

    def upload(self, path: Path, key: str) -> None:
        """A file, or every file of a folder under `key/`; each object appears whole or not at all."""
        files = [path] if path.is_file() else sorted(item for item in path.rglob("*") if item.is_file())
        for file in files:
            object_key = key if file == path else f"{key}/{file.relative_to(path).as_posix()}"
            # upload_file goes multipart past 8 MiB: invisible until complete, aborted on failure
            self.client.upload_file(os.fspath(file), self.bucket, object_key)
            STORE_BYTES.labels("s3", "put").inc(file.stat().st_size)
            answer = self.client.head_object(Bucket=self.bucket, Key=object_key)
            tag = self.cache / ".etags" / self.bucket / object_key
            tag.parent.mkdir(parents=True, exist_ok=True)
            if file != self.local(object_key):
                continue
            tag.write_text(answer["ETag"])  # the cached file is the object: no download next time

    def remove(self, key: str) -> None:
        """Deletes the object `key` and every object under `key/`, with their cached copies."""
        keys = [key] if self.head(key) is not None else []
        keys += [object_key for object_key, _ in self.listing(f"{key}/")]
        for start in range(0, len(keys), 1000):  # DeleteObjects takes at most 1,000 keys
            chunk = keys[start : start + 1000]
            self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": [{"Key": name} for name in chunk]})
        for name in keys:
            (self.cache / ".etags" / self.bucket / name).unlink(missing_ok=True)
        _remove_local(self.local(key))


def _remove_local(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def trim_cache(keep: Path) -> None:
    """Removes the least recently used files of the store cache until it fits AGENTRL_STORE_CACHE_MB (default
    8192); nothing under `keep` (the run being trained) goes. The TypeScript side trims by the same rule."""
    root = cache_root()
    limit = float(os.environ.get("AGENTRL_STORE_CACHE_MB") or 8192) * 1024 * 1024
    etags = root / ".etags"
    files = []
    for path in root.rglob("*") if root.is_dir() else []:
        if path.is_file() and etags not in path.parents:
            try:
                info = path.stat()
            except FileNotFoundError:
                continue
            files.append((info.st_mtime, info.st_size, path))
    total = sum(size for _, size, _ in files)
    for _, size, path in sorted(files):
        if total <= limit:
            break
        if keep == path or keep in path.parents:
            continue
        path.unlink(missing_ok=True)
        total -= size


def fetch_ref(ref: str) -> Path:
    """A local path holding what `ref` names (a file:// path as it is; an S3 object fetched into the cache)."""
    local = local_path_of(ref)
    if local is not None:
        if not local.exists():
            raise FileNotFoundError(f"{ref} does not exist")
        return local
    bucket, key = _split(ref)
    path = _S3Objects(bucket).fetch(key)
    if path is None:
        raise FileNotFoundError(f"{ref} does not exist")
    return path


class RunStore:
    """A training run's prefix: `local` is the folder the step works in."""

    def __init__(self, ref: str) -> None:
        self.ref = ref.rstrip("/")
        local = local_path_of(self.ref)
        if local is not None:
            self._objects: _S3Objects | None = None
            self._prefix = ""
            self.local = local
        else:
            bucket, self._prefix = _split(self.ref)
            self._objects = _S3Objects(bucket)
            self.local = self._objects.local(self._prefix)

    @property
    def remote(self) -> bool:
        return self._objects is not None

    @property
    def name(self) -> str:
        """The run's id (the last part of its reference)."""
        return self.ref.rsplit("/", 1)[-1]

    def ref_of(self, relative: str) -> str:
        return f"{self.ref}/{relative}"

    def fetch(self, relative: str) -> Path | None:
        """The run's file or folder `relative`, locally; None when the run has none."""
        if self._objects is None:
            path = self.local / relative
            return path if path.exists() else None
        return self._objects.fetch(f"{self._prefix}/{relative}")

    def publish(self, relative: str) -> None:
        """Uploads the local file or folder `relative` (nothing to do for a folder store); then keeps the
        cache within its bound, the run's own files last."""
        if self._objects is not None:
            self._objects.upload(self.local / relative, f"{self._prefix}/{relative}")
            trim_cache(keep=self.local)

    def remove(self, relative: str) -> None:
        """Deletes the run's file or folder `relative` (in the bucket and the cache, or in the folder)."""
        if self._objects is not None:
            self._objects.remove(f"{self._prefix}/{relative}")
        else:
            _remove_local(self.local / relative)

    def checkpoint_steps(self) -> list[int]:
        """The steps the run holds a checkpoint of (a file step-N.pt or a folder step-N)."""
        if self._objects is None:
            folder = self.local / "checkpoints"
            names = os.listdir(folder) if folder.is_dir() else []
        else:
            names = self._objects.names_under(f"{self._prefix}/checkpoints")
        return sorted(int(match.group(1)) for name in names if (match := _CHECKPOINT_NAME.match(name)))

    def read_record(self, step_id: str) -> dict[str, Any] | None:
        """The completion record of `step_id` as the store holds it; None when the step has not completed."""
        if self._objects is None:
            return read_step_record(self.local, step_id)
        key = f"{self._prefix}/steps/{step_id}.json"
        try:
            answer = self._objects.client.get_object(Bucket=self._objects.bucket, Key=key)
        except Exception as error:
            if _status(error) == 404:
                return None
            raise
        return json.loads(answer["Body"].read())

    def write_record(self, step_id: str, record: dict[str, Any]) -> dict[str, Any]:
        """Writes the record unless one exists; returns the record that stands (ours, or an earlier attempt's)."""
        written = {"formatVersion": STEP_RECORD_FORMAT_VERSION, **record}
        if self._objects is None:
            write_step_record(self.local, step_id, record)  # under the run's flock: no other attempt writes meanwhile
            return written
        body = json.dumps(written, indent=1) + "\n"
        try:
            self._objects.client.put_object(
                Bucket=self._objects.bucket,
                Key=f"{self._prefix}/steps/{step_id}.json",
                Body=body.encode(),
                IfNoneMatch="*",
            )
        except Exception as error:
            if _status(error) not in (409, 412):
                raise
            standing = self.read_record(step_id)
            if standing is None:
                raise
            return standing
        return written

    @contextmanager
    def lock(self) -> Iterator[None]:
        """The run's lock: a flock on a folder store, a lease object on S3 (raises RunBusyError at once)."""
        if self._objects is None:
            with run_lock(self.local):
                yield
            return
        lease = _Lease(self._objects, f"{self._prefix}/{LEASE_KEY}")
        lease.acquire()
        self._lease = lease
        try:
            yield
        finally:
            self._lease = None
            lease.release()

    def check_lock(self) -> None:
        """Raises RunBusyError when the lease was lost (not renewed in time and taken over): write nothing more."""
        lease = getattr(self, "_lease", None)
        if lease is not None and lease.lost:
            raise RunBusyError(f"the run's lease {self.ref}/{LEASE_KEY} was taken over: this attempt stops")


class _Lease:
    """An exclusive lease on one object, taken and renewed with conditional writes.

    Taken with `If-None-Match: *`, or over a lease whose holder stopped renewing it with `If-Match`
    on that lease's ETag; renewed every LEASE_SECONDS / 3 with `If-Match` on our own. Expiry is read
    by the taker's clock against the holder's stated expiry, so hosts' clocks must agree to within a
    fraction of LEASE_SECONDS (NTP does far better).
    """

    def __init__(self, objects: _S3Objects, key: str) -> None:
        self.objects, self.key = objects, key
        self.owner = f"{os.uname().nodename}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.etag: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.lost = False

    def _body(self) -> bytes:
        return json.dumps({"owner": self.owner, "expiresAt": time.time() + LEASE_SECONDS}).encode()

    def _put(self, **condition: str) -> bool:
        try:
            answer = self.objects.client.put_object(
                Bucket=self.objects.bucket, Key=self.key, Body=self._body(), **condition
            )
        except Exception as error:
            if _status(error) in (409, 412):
                return False
            raise
        self.etag = answer["ETag"]
        return True

    def acquire(self) -> None:
        if not self._put(IfNoneMatch="*"):
            try:
                answer = self.objects.client.get_object(Bucket=self.objects.bucket, Key=self.key)
            except Exception as error:
                if _status(error) != 404:
                    raise
                answer = None
            if answer is None:  # released in between
                taken = self._put(IfNoneMatch="*")
            else:
                held = json.loads(answer["Body"].read())
                if float(held.get("expiresAt", 0)) > time.time():
                    raise RunBusyError(
                        f"the run's lease s3://{self.objects.bucket}/{self.key} is held by {held.get('owner')}: "
                        "a step of this run is in progress"
                    )
                taken = self._put(IfMatch=answer["ETag"])
            if not taken:
                raise RunBusyError(f"another attempt took the run's lease s3://{self.objects.bucket}/{self.key} first")
        self._thread = threading.Thread(target=self._renew, name="run-lease", daemon=True)
        self._thread.start()

    def _renew(self) -> None:
        while not self._stop.wait(LEASE_SECONDS / 3):
            try:
                if not self._put(IfMatch=self.etag or ""):
                    self.lost = True
                    return
            except Exception:  # a transient store error: the next renewal tries again before expiry
                continue

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if not self.lost:
            try:
                self.objects.client.delete_object(Bucket=self.objects.bucket, Key=self.key, IfMatch=self.etag)
            except Exception:  # a server without conditional deletes, or gone: the lease expires by itself
                pass
