/**
 * Prints the field tables of docs/plan-format.md (with their markers) from the registry in
 * src/plan/field-support.ts: paste it over the copy between the markers when the registry changes.
 */
import { PLAN_FIELDS_END, PLAN_FIELDS_START, renderPlanFields } from "../src/plan/render-plan-fields.ts";

process.stdout.write(`${PLAN_FIELDS_START}\n${renderPlanFields()}\n${PLAN_FIELDS_END}\n`);
