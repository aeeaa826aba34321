// Built by scripts/build-action.ts: do not edit. Rebuild with `npm run build`.
import { createRequire as __loomCreateRequire } from "node:module";
const require = __loomCreateRequire(import.meta.url);
import{SessionStartInput,runHook}from"./chunks/chunk-I5YYY7MW.js";import{existsSync,readFileSync}from"node:fs";var EXCERPT_CHARS=3e3;function renderReanchor(env){let lines=[`loom: you are working on stage \`${env.LOOM_STAGE_ID||"unknown"}\` (attempt ${env.LOOM_ATTEMPT}). The conversation was compacted or resumed: re-read your assignment before going on.`],assignment=env.LOOM_ASSIGNMENT_FILE;if(assignment!==void 0&&existsSync(assignment)){let text=readFileSync(assignment,"utf8");lines.push(`Your full assignment is in ${assignment}. Its beginning:`,text.slice(0,EXCERPT_CHARS))}let handoff=env.LOOM_HANDOFF_FILE;return handoff!==void 0&&existsSync(handoff)&&lines.push(`Notes written just before compaction (what you did so far): ${handoff}`,readFileSync(handoff,"utf8")),lines.join(`

`)}function handleSessionStart(input,env,_now){if(input.source!=="compact"&&input.source!=="resume")return{exitCode:0};let output={hookSpecificOutput:{hookEventName:"SessionStart",additionalContext:renderReanchor(env)}};return{exitCode:0,stdout:`${JSON.stringify(output)}
`}}import.meta.main&&await runHook("SessionStart",SessionStartInput,handleSessionStart);export{handleSessionStart,renderReanchor};
