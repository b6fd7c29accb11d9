"""Helpers for the few hand-written statements of the pipeline's hot path.

On PostgreSQL a step reads its submission and records its attempt in one statement, and a
transition writes the state, its audit event and the step's result in one statement: a round
trip each, where the ORM needs several. These helpers keep those statements honest: values are
prepared by the model fields exactly as the ORM would prepare them, rows come back as model
instances through the fields' own converters, and every table and column name comes from the
models. Everything else keeps using the ORM; other databases use the ORM for these too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, TypeVar

from django.db import connection, models
from django.db.models import DEFERRED

ModelT = TypeVar("ModelT", bound=models.Model)


def single_statements() -> bool:
    """Whether the database runs data-modifying CTEs (PostgreSQL), so a step's writes can go
    in one statement; elsewhere the same writes go through the ORM, one by one."""
    return connection.vendor == "postgresql"


def without_waiting_for_disk() -> str:
    """A select-list item (``, set_config(…)``) that lets a single statement run outside any
    transaction commit without waiting for the disk, for writes that are hints or caches (an
    attempt's in-flight record, a grading result): ``synchronous_commit`` is off for that
    statement's own transaction only. A later durable commit flushes them too, the log being
    written in order. Inside a caller's transaction it would apply to all of it, so there it is
    left out (empty)."""
    if connection.in_atomic_block:
        return ""
    return ", set_config('synchronous_commit', 'off', true)"


@cache
def table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@cache
def column(model: type[models.Model], field_name: str) -> str:
    name = _concrete(model, field_name).column
    if name is None:
        raise LookupError(f"{model.__name__}.{field_name} is not stored in a column")
    return connection.ops.quote_name(name)


def prepared(model: type[models.Model], field_name: str, value: Any) -> Any:
    """``value`` as the ORM would send it for ``model.field_name`` (a model instance for a
    foreign key becomes its primary key)."""
    field = _concrete(model, field_name)
    if isinstance(value, models.Model):
        value = value.pk
    return field.get_db_prep_save(value, connection)


def assignments(model: type[models.Model], values: Mapping[str, Any]) -> tuple[str, list[Any]]:
    """``"col" = %s, …`` and its parameters, for an UPDATE of ``values`` (field name → value)."""
    sql = ", ".join(f"{column(model, name)} = %s" for name in values)
    return sql, [prepared(model, name, value) for name, value in values.items()]


def columns(model: type[models.Model], field_names: Sequence[str], alias: str) -> str:
    return ", ".join(f"{alias}.{column(model, name)}" for name in field_names)


def insertion(
    obj: models.Model, computed: Mapping[str, str] | None = None
) -> tuple[str, str, list[Any]]:
    """The column list, value list and parameters of an INSERT of ``obj`` exactly as ``save()``
    would write it (defaults, ``auto_now_add``, foreign keys as ids); a primary key the
    database generates is left to it unless ``obj`` has one already (drawn in advance with
    ``next_id``). ``computed`` gives SQL expressions for some fields (by name), e.g. an id
    another part of the statement returns."""
    computed = computed or {}
    fields = [
        field
        for field in type(obj)._meta.concrete_fields
        if not (field.primary_key and field.db_returning and obj.pk is None)
    ]
    names = ", ".join(column(type(obj), field.name) for field in fields)
    expressions = ", ".join(computed.get(field.name, "%s") for field in fields)
    params = [
        field.get_db_prep_save(field.pre_save(obj, True), connection)
        for field in fields
        if field.name not in computed
    ]
    return names, expressions, params


def next_id(model: type[models.Model]) -> str:
    """A SQL expression drawing the next id of ``model``'s generated primary key: a row whose
    id is known before it is stored can be pointed to by a write in the same statement."""
    return f"nextval(pg_get_serial_sequence('{table(model)}', '{model._meta.pk.column}'))"


def concrete_field_names(model: type[models.Model]) -> tuple[str, ...]:
    return tuple(field.attname for field in model._meta.concrete_fields)


def instance(model: type[ModelT], field_names: Sequence[str], values: Sequence[Any]) -> ModelT:
    """A model instance from raw column values (``field_names`` are field names or attribute
    names), converted by the fields as a queryset would; fields not named are deferred."""
    by_attname = {}
    for (attname, expression, converters), value in zip(
        _readers(model, tuple(field_names)), values, strict=True
    ):
        for converter in converters:
            value = converter(value, expression, connection)
        by_attname[attname] = value
    return model.from_db(
        connection.alias,
        list(by_attname),
        [by_attname.get(field.attname, DEFERRED) for field in model._meta.concrete_fields],
    )


@cache
def _readers(
    model: type[models.Model], field_names: tuple[str, ...]
) -> list[tuple[str, Any, list]]:
    """Per named field: its attribute, its column expression and the converters a queryset
    would apply to its values."""
    readers = []
    for name in field_names:
        field = _concrete(model, _field_name(model, name))
        expression = field.get_col(model._meta.db_table)
        converters = [
            *connection.ops.get_db_converters(expression),
            *expression.get_db_converters(connection),
        ]
        readers.append((field.attname, expression, converters))
    return readers


def converted(model: type[models.Model], field_name: str, value: Any) -> Any:
    """A raw column value of ``model.field_name`` converted as a queryset would (JSON parsed…)."""
    ((_, expression, converters),) = _readers(model, (field_name,))
    for converter in converters:
        value = converter(value, expression, connection)
    return value


def _concrete(model: type[models.Model], field_name: str) -> models.Field:
    """The model's own field ``field_name`` (a reverse relation has nothing to write)."""
    field = model._meta.get_field(field_name)
    if not isinstance(field, models.Field):
        raise LookupError(f"{model.__name__}.{field_name} is a reverse relation")
    return field


def _field_name(model: type[models.Model], name: str) -> str:
    """The field called ``name``, or whose attribute (``…_id`` of a foreign key) is ``name``."""
    for field in model._meta.concrete_fields:
        if name in (field.name, field.attname):
            return field.name
    raise LookupError(f"{model.__name__} has no field {name}")
