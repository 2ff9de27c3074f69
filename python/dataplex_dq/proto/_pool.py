"""Private descriptor pool of the generated ``google.cloud.dataplex.v1`` messages.

protoc's plain Python output registers ``google/cloud/dataplex/v1/*.proto`` in protobuf's
process-wide default pool. ``google-cloud-dataplex`` registers files of the same names and
symbols there too, so importing both in one process fails with ``duplicate symbol`` (in either
order). ``scripts/gen_protos.py`` therefore rewrites the generated modules to add their
descriptors to :data:`POOL` instead, through :func:`add_serialized_file`.

The files our protos import from outside the project (``google/api/field_behavior.proto``,
``google/api/resource.proto``, ``google/protobuf/duration.proto`` and, through them,
``google/protobuf/descriptor.proto``) are copied into :data:`POOL` from the default pool, where
the generated module's own imports (``googleapis-common-protos``, ``protobuf``) have just put
them. Only descriptors are copied; messages keep the same full names and field numbers, so the
bytes stay wire-compatible with Google's classes.
"""

from __future__ import annotations

from google.protobuf import descriptor, descriptor_pb2, descriptor_pool

__all__ = ["POOL", "add_serialized_file"]

#: The pool that holds our three ``google.cloud.dataplex.v1`` files and their dependencies.
POOL = descriptor_pool.DescriptorPool()

# Files of our own protos: they must come from POOL, never from the default pool, where
# google-cloud-dataplex may hold different files under the same names.
_PROJECT_PREFIX = "google/cloud/dataplex/"


def _has_file(name: str) -> bool:
    try:
        POOL.FindFileByName(name)
    except KeyError:
        return False
    return True


def _copy_from_default(file: descriptor.FileDescriptor) -> None:
    """Add ``file`` and, first, its transitive dependencies to :data:`POOL`."""
    if _has_file(file.name):
        return
    for dependency in file.dependencies:
        _copy_from_default(dependency)
    POOL.AddSerializedFile(file.serialized_pb)


def _ensure_dependency(name: str) -> None:
    if _has_file(name):
        return
    if name.startswith(_PROJECT_PREFIX):
        raise ImportError(
            f"{name} is not in the dataplex_dq descriptor pool: import its dataplex_dq.proto "
            "module first (the generated code does this)"
        )
    try:
        file = descriptor_pool.Default().FindFileByName(name)
    except KeyError:
        raise ImportError(f"{name} is needed by a dataplex_dq proto but its Python module was not imported") from None
    _copy_from_default(file)


def add_serialized_file(serialized_file: bytes) -> descriptor.FileDescriptor:
    """Add a serialized ``FileDescriptorProto`` (and what it imports) to :data:`POOL`."""
    proto = descriptor_pb2.FileDescriptorProto.FromString(serialized_file)
    for name in proto.dependency:
        _ensure_dependency(name)
    added: descriptor.FileDescriptor = POOL.AddSerializedFile(serialized_file)
    return added
