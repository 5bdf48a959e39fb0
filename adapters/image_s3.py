"""The S3-compatible image store (``image_store`` s3: MinIO in compose, or any S3 API): one object per picture,
keyed by the sha256 of its bytes, fetched by the gateway through a presigned GET URL.

Why ``minio`` (the MinIO Python SDK) and not ``boto3``: it speaks the whole S3 API this needs (put, stat, get,
delete, presign, make a bucket) with a few small dependencies (urllib3, certifi, argon2-cffi, pycryptodome),
where boto3 brings botocore's data files for every AWS service; both are well kept.

Two endpoints: the workers reach the store at ``s3_endpoint`` (``http://minio:9000`` inside compose), the gateway
may reach it elsewhere (``s3_public_endpoint``, e.g. ``http://localhost:9000``): a presigned URL signs its host,
so it is signed by a client configured with the public one. Signing is local (HMAC, the region is configured):
no request. The bucket is created on first use when it is missing.

The keys come from the environment only (SecretStr settings) and are never in a log line, an error or a repr.
"""

from __future__ import annotations

import io
import logging
import threading
from datetime import datetime, timedelta
from urllib.parse import urlsplit

import urllib3
from minio import Minio
from minio.error import S3Error

from ella.world.images import Link, check_sha256, image_type, sha256_of

log = logging.getLogger(__name__)

_MISSING = {"NoSuchKey", "NoSuchObject", "NotFound", "ResourceNotFound"}


class S3ImageStore:
    """Picture bytes in a bucket of an S3-compatible server, linked by presigned GET URLs of ``expiry_s``."""

    name = "s3"

    def __init__(
        self,
        endpoint: str,
        bucket: str,
        access_key: str,
        secret_key: str,
        *,
        region: str = "us-east-1",
        public_endpoint: str | None = None,
        expiry_s: int = 604800,
        timeout_s: float = 30.0,
    ) -> None:
        self.bucket = bucket
        self.expiry = timedelta(seconds=expiry_s)
        self.endpoint = endpoint
        http = urllib3.PoolManager(
            timeout=urllib3.Timeout(connect=min(5.0, timeout_s), read=timeout_s),
            retries=urllib3.Retry(total=3, backoff_factor=0.2, status_forcelist=[500, 502, 503, 504]),
        )
        self._client = _client(endpoint, access_key, secret_key, region, http)
        self._signer = _client(public_endpoint or endpoint, access_key, secret_key, region, http)
        self._bucket_ready = False
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"S3ImageStore({self.endpoint!r}, bucket={self.bucket!r})"

    def _ready(self) -> None:
        """Make the bucket on first use (compose's MinIO starts empty); once per store."""
        if self._bucket_ready:
            return
        with self._lock:
            if not self._client.bucket_exists(self.bucket):
                try:
                    self._client.make_bucket(self.bucket)
                    log.info("image bucket %s created", self.bucket)
                except S3Error as exc:  # another worker made it first
                    if exc.code not in {"BucketAlreadyOwnedByYou", "BucketAlreadyExists"}:
                        raise
            self._bucket_ready = True

    def put(self, data: bytes) -> str:
        sha = sha256_of(data)
        self._ready()
        if not self.has(sha):  # the same bytes are the same object: never written twice
            media = image_type(data) or "application/octet-stream"
            self._client.put_object(self.bucket, sha, io.BytesIO(data), len(data), content_type=media)
        return sha

    def get(self, sha256: str) -> bytes:
        response = self._client.get_object(self.bucket, check_sha256(sha256))
        try:
            return response.read()
        finally:
            response.close()
            response.release_conn()

    def has(self, sha256: str) -> bool:
        try:
            self._client.stat_object(self.bucket, check_sha256(sha256))
        except S3Error as exc:
            if exc.code in _MISSING or exc.code == "NoSuchBucket":
                return False
            raise
        return True

    def remove(self, sha256: str) -> bool:
        if not self.has(sha256):
            return False
        self._client.remove_object(self.bucket, sha256)
        return True

    def media_type(self, sha256: str) -> str | None:
        """The object's content type, set from the bytes' signature when it was put (one HEAD request); None when
        the store cannot say (the reference then says ``application/octet-stream``: a store that is away must not
        fail the turn that carries it)."""
        try:
            stat = self._client.stat_object(self.bucket, check_sha256(sha256))
        except (S3Error, urllib3.exceptions.HTTPError, OSError) as exc:
            log.warning("image store: no media type for a picture (%s)", type(exc).__name__)
            return None
        return stat.content_type

    def link(self, sha256: str, now: datetime) -> Link:
        """A presigned GET URL of the object, valid for ``expiry`` from ``now`` (signed locally, no request)."""
        url = self._signer.presigned_get_object(self.bucket, check_sha256(sha256), expires=self.expiry,
                                                request_date=now)  # fmt: skip
        return Link(url, now + self.expiry)


def _client(endpoint: str, access_key: str, secret_key: str, region: str, http: urllib3.PoolManager) -> Minio:
    """A client of ``endpoint`` (``http://host:port`` or ``https://host``)."""
    parts = urlsplit(endpoint if "://" in endpoint else f"http://{endpoint}")
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise ValueError(f"not an S3 endpoint URL: {endpoint!r}")
    return Minio(parts.netloc, access_key=access_key, secret_key=secret_key, secure=parts.scheme == "https",
                 region=region, http_client=http)  # fmt: skip
