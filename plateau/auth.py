"""Bearer-token auth with tenants, and TLS settings for the server and the client.

Tokens
    A token file (or the ``PLATEAU_TOKENS`` environment variable) holds one ``tenant:token``
    per line (``#`` starts a comment; in the variable, entries may also be separated by
    commas). Tokens must be at least :data:`MIN_TOKEN_CHARS` characters and must not contain
    whitespace or commas; one tenant may hold several tokens (rotation). A call carries
    ``authorization: Bearer <token>`` metadata; the server compares it with every known token
    in constant time (:func:`hmac.compare_digest` of SHA-256 digests, no early exit) and
    answers ``UNAUTHENTICATED`` without a valid one. Runs are namespaced per tenant: one
    tenant's run ids are invisible to another (``NOT_FOUND``, as for a run that does not
    exist). Health checking and reflection stay open (load balancers probe them; they reveal
    no run).

TLS
    :class:`ServerTls` (certificate chain + key, optionally a client CA for mutual TLS) and
    :class:`ClientTls` (CA to trust, optionally a client certificate + key) read PEM files.
    Bearer tokens over a plaintext port can be read by anyone on the path: use TLS off
    loopback.

This module imports only the standard library (the client needs it without grpc extras).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from plateau.errors import InvalidArgument, Unauthenticated

__all__ = ["MIN_TOKEN_CHARS", "TOKENS_ENV", "ClientTls", "ServerTls", "TokenTable"]

#: Shortest token accepted (characters): 16 random base64 characters are ~96 bits.
MIN_TOKEN_CHARS = 16
#: Environment variable holding ``tenant:token`` entries (server side).
TOKENS_ENV = "PLATEAU_TOKENS"


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


class TokenTable:
    """Known bearer tokens and the tenant each one names.

    Parameters
    ----------
    entries
        ``(tenant, token)`` pairs. Tenants are non-empty names without ``:``, whitespace or
        control characters; tokens at least :data:`MIN_TOKEN_CHARS` characters, no
        whitespace or commas.

    Raises
    ------
    InvalidArgument
        ``tokens`` naming the bad entry (never echoing a token), or when ``entries`` is empty.
    """

    def __init__(self, entries: Iterable[tuple[str, str]]) -> None:
        table: list[tuple[bytes, str]] = []
        for n, (tenant, token) in enumerate(entries, start=1):
            if not tenant or any(c.isspace() or c == ":" or ord(c) < 32 for c in tenant):
                raise InvalidArgument("tokens", f"entry {n}: tenant {tenant!r} must be a non-empty name without ':' or spaces")
            if len(token) < MIN_TOKEN_CHARS or any(c.isspace() or c == "," for c in token):
                raise InvalidArgument(
                    "tokens", f"entry {n} (tenant {tenant!r}): a token needs >= {MIN_TOKEN_CHARS} characters and no spaces or commas"
                )
            table.append((_digest(token), tenant))
        if not table:
            raise InvalidArgument("tokens", "no tokens given; auth needs at least one tenant:token entry")
        self._table = tuple(table)

    @property
    def tenants(self) -> frozenset[str]:
        """The tenants named by the table."""
        return frozenset(t for _, t in self._table)

    def __len__(self) -> int:
        return len(self._table)

    @classmethod
    def parse(cls, text: str, *, commas: bool = False) -> TokenTable:
        """Read ``tenant:token`` lines (and comma-separated entries when ``commas``)."""
        entries: list[tuple[str, str]] = []
        for raw in text.splitlines():
            line = raw.split("#", 1)[0].strip()
            for item in line.split(",") if commas else [line]:
                item = item.strip()
                if not item:
                    continue
                tenant, sep, token = item.partition(":")
                if not sep:
                    raise InvalidArgument("tokens", f"entry {len(entries) + 1}: expected tenant:token")
                entries.append((tenant.strip(), token.strip()))
        return cls(entries)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> TokenTable:
        """Read a token file. Raises ``InvalidArgument`` (unreadable or malformed file)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidArgument("tokens", f"cannot read {path}: {exc}") from None
        return cls.parse(text)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> TokenTable | None:
        """The table in ``$PLATEAU_TOKENS``, or None when it is unset or empty."""
        text = (os.environ if environ is None else environ).get(TOKENS_ENV, "").strip()
        return cls.parse(text, commas=True) if text else None

    def tenant_for(self, token: str | None) -> str | None:
        """The tenant of ``token``, or None. Compares with every entry in constant time."""
        if not token:
            return None
        probe = _digest(token)
        found: str | None = None
        for digest, tenant in self._table:
            if hmac.compare_digest(digest, probe) and found is None:
                found = tenant
        return found

    def authenticate(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
        """The tenant of the call whose metadata is ``metadata``.

        Raises
        ------
        Unauthenticated
            No ``authorization: Bearer …`` entry, or an unknown token.
        """
        header = None
        for name, value in metadata or ():
            if name.lower() == "authorization":
                header = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
                break
        if header is None:
            raise Unauthenticated("authorization: this server requires a bearer token (metadata 'authorization: Bearer <token>')")
        scheme, _, token = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthenticated("authorization: expected 'Bearer <token>'")
        tenant = self.tenant_for(token.strip())
        if tenant is None:
            raise Unauthenticated("authorization: unknown token")
        return tenant


def _read(path: str | os.PathLike[str] | None, what: str) -> bytes | None:
    if path is None:
        return None
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise InvalidArgument(what, f"cannot read {path}: {exc}") from None


@dataclass(frozen=True)
class ServerTls:
    """The server's TLS material (PEM bytes).

    Attributes
    ----------
    cert_chain, private_key
        The server's certificate chain and key.
    client_ca
        CA certificates that client certificates must chain to; when set, clients must
        present one (mutual TLS), else the handshake fails.
    """

    cert_chain: bytes
    private_key: bytes
    client_ca: bytes | None = None

    @classmethod
    def from_files(
        cls, cert: str | os.PathLike[str], key: str | os.PathLike[str], client_ca: str | os.PathLike[str] | None = None
    ) -> ServerTls:
        """Read PEM files. Raises ``InvalidArgument`` naming the unreadable one."""
        chain, private = _read(cert, "tls_cert"), _read(key, "tls_key")
        assert chain is not None and private is not None
        return cls(chain, private, _read(client_ca, "tls_client_ca"))


@dataclass(frozen=True)
class ClientTls:
    """The client's TLS settings (PEM bytes; all optional).

    Attributes
    ----------
    root_certificates
        CA certificates to trust for the server; None for the system's roots.
    cert_chain, private_key
        The client's certificate and key, for servers that require mutual TLS.
    server_name
        The name to verify the server's certificate against, when it differs from the
        target's host (``grpc.ssl_target_name_override``).
    """

    root_certificates: bytes | None = None
    cert_chain: bytes | None = None
    private_key: bytes | None = None
    server_name: str | None = None

    @classmethod
    def from_files(
        cls,
        ca: str | os.PathLike[str] | None = None,
        cert: str | os.PathLike[str] | None = None,
        key: str | os.PathLike[str] | None = None,
        server_name: str | None = None,
    ) -> ClientTls:
        """Read PEM files. Raises ``InvalidArgument`` naming the unreadable one, or when only
        one of ``cert`` and ``key`` is given."""
        if (cert is None) != (key is None):
            raise InvalidArgument("tls_cert", "a client certificate needs its key, and a key its certificate")
        return cls(_read(ca, "tls_ca"), _read(cert, "tls_cert"), _read(key, "tls_key"), server_name)
