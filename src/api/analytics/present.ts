import type { Static } from '@sinclair/typebox';
import { buildCallReport, type AnalyticsData } from '../../store/index.ts';
import { SERIES_REASONS, SERIES_STATUSES, type AnalyticsReport } from './schemas.ts';

// The published report: the store folds its grouped rows (`buildCallReport`) with the published
// series keys. The return type is the schema's, so the compiler checks that the store's report
// type (`CallReport`) fits what the route publishes.

export function buildReport(data: AnalyticsData, from: number, to: number): Static<typeof AnalyticsReport> {
  return buildCallReport(data, { from, to }, { statuses: SERIES_STATUSES, reasons: SERIES_REASONS });
}
