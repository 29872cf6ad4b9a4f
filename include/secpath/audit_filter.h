/*
 * audit_filter.h - the audit event model and the two filter engines (placeholder until the
 * filter-engine work lands).  Included from audit.h.
 */
#ifndef SECPATH_AUDIT_FILTER_H
#define SECPATH_AUDIT_FILTER_H
#include "secpath.h"
#endif
