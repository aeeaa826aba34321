// Built by scripts/build-action.ts: do not edit. Rebuild with `npm run build`.
import { createRequire as __loomCreateRequire } from "node:module";
const require = __loomCreateRequire(import.meta.url);
import{StopInput,runHook,writeFileAtomic}from"./chunks/chunk-I5YYY7MW.js";import{execFileSync}from"node:child_process";import{existsSync,readFileSync,statSync}from"node:fs";import{join}from"node:path";function readUncommitted(cwd){try{return execFileSync("git",["status","--porcelain"],{cwd,encoding:"utf8",timeout:1e4}).trim()}catch(error){return process.stderr.write(`loom Stop hook: git status failed, not checking for uncommitted work (${String(error)})
`),null}}function readBlockCount(path){if(!existsSync(path))return 0;let count=Number.parseInt(readFileSync(path,"utf8"),10);return Number.isFinite(count)?count:0}var LEARNINGS_ASKED="learnings-asked";function listMissingWork(cwd,env,askForLearnings=!0){let missing=[],status=readUncommitted(cwd);if(status!==null&&status!==""){let files=status.split(`
`).slice(0,10).join(`
`);missing.push(`Commit your work: there are uncommitted changes (git add + git commit, saying what and why):
${files}`)}let learnings=env.LOOM_LEARNINGS_FILE;return askForLearnings&&learnings!==void 0&&(!existsSync(learnings)||statSync(learnings).size===0)&&missing.push(`Record what you learned in ${learnings}: one JSON object per line with category, summary, detail, tags, scope and criteria_met, as Recording Learnings in your assignment describes (write one line saying there was nothing worth keeping if so).`),missing}function handleStop(input,env,_now){let statePath=env.LOOM_STATE_DIR===void 0?null:join(env.LOOM_STATE_DIR,"stop-blocks"),blocks=statePath===null?input.stop_hook_active?1/0:0:readBlockCount(statePath);if(blocks>=env.LOOM_STOP_MAX_BLOCKS)return{exitCode:0};let askedPath=env.LOOM_STATE_DIR===void 0?null:join(env.LOOM_STATE_DIR,LEARNINGS_ASKED),asked=askedPath===null?input.stop_hook_active:existsSync(askedPath),missing=listMissingWork(input.cwd??process.cwd(),env,!asked);return missing.length===0?{exitCode:0}:(statePath!==null&&writeFileAtomic(statePath,`${blocks+1}
`),askedPath!==null&&missing.some(m=>m.startsWith("Record what you learned"))&&writeFileAtomic(askedPath,`1
`),{exitCode:2,stderr:`loom: before you stop:
${missing.map(m=>`- ${m}`).join(`
`)}
`})}import.meta.main&&await runHook("Stop",StopInput,handleStop);export{handleStop,listMissingWork,readUncommitted};
