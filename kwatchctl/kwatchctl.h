/* SPDX-License-Identifier: GPL-2.0 */
/* kwatchctl's reading side, shared by its files: one event as a readable
 * line, and the summary of a finished NDJSON stream. */
#ifndef KWATCHCTL_H
#define KWATCHCTL_H

#include <stdio.h>
#include <json-c/json.h>

/* One line: seq, timestamp, type, then a sentence for crash and catch
 * events, then every other payload field as key=value. */
void kwc_print_readable(FILE *out, json_object *o);

/* The schema of the stream this kwatchctl reads. */
#define KWC_SCHEMA 1

/* Say once on stderr when o is not of schema KWC_SCHEMA (none, or a
 * newer one); the caller reads it on as well as it can. */
void kwc_schema_check(json_object *o);

/* Read NDJSON from in to EOF and print what it holds to out: events by
 * type, seq ranges and the gaps no lost record covers, lost records,
 * catches and crashes.  Returns 0, or -errno on a read error. */
int kwc_summary(FILE *in, FILE *out);

/* kwatchctl resolve and kwatchctl stackvars (kwatchctl-resolve.c), with
 * argv[0] the command. */
int kwc_resolve(int argc, char **argv);
int kwc_stackvars(int argc, char **argv);

#endif
