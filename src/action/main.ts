import * as core from '@actions/core';
import { loadKubeconfig } from '../cluster/kubeconfig.js';
import { DeployError, deploy } from '../core/deploy.js';
import { locatedFailures } from '../core/errors.js';
import { countActions, type DeployReport } from '../report/report.js';
import { addDeploySummary } from '../report/summary.js';
import { getInputs } from './inputs.js';
import { actionLogger } from './logger.js';

/**
 * The Action: inputs → deploy → outputs and job summary. Any failure fails the step; located
 * failures (a manifest's file and line) become file annotations on the pull request.
 */
export async function run(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    const inputs = getInputs();
    if (inputs.kubeconfig) {
      core.setSecret(inputs.kubeconfig);
      // Mask each credential inside too, in case a part of it is ever printed on its own.
      for (const secret of loadKubeconfig({ content: inputs.kubeconfig }, inputs.context || undefined)
        .secrets)
        core.setSecret(secret);
    }
    const kubeconfig = inputs.kubeconfig
      ? { content: inputs.kubeconfig }
      : { paths: (env.KUBECONFIG ?? `${env.HOME}/.kube/config`).split(':').filter(Boolean) };
    let report: DeployReport;
    try {
      report = await deploy({
        path: inputs.path,
        kubeconfig,
        context: inputs.context || undefined,
        namespace: inputs.namespace || undefined,
        name: inputs.name || undefined,
        mode: inputs.mode,
        wait: inputs.wait,
        timeoutMs: inputs.timeoutMs,
        forceConflicts: inputs.forceConflicts,
        prune: inputs.prune,
        concurrency: inputs.concurrency,
        logger: actionLogger,
      });
    } catch (error) {
      if (error instanceof DeployError) await publish(error.report, env);
      throw error;
    }
    await publish(report, env);
  } catch (error) {
    for (const f of locatedFailures(error)) {
      const props = f.file ? { file: f.file, startLine: f.line } : {};
      if (f.severity === 'warning') core.warning(f.message, props);
      else core.error(f.message, props);
    }
    core.setFailed((error as Error).message ?? String(error));
  }
}

async function publish(report: DeployReport, env: NodeJS.ProcessEnv): Promise<void> {
  const counts = countActions(report);
  core.setOutput('deployment', report.deployment);
  core.setOutput('namespace', report.namespace);
  core.setOutput('context', report.context);
  core.setOutput('objects', JSON.stringify(report.objects));
  core.setOutput('created', counts.created);
  core.setOutput('configured', counts.configured);
  core.setOutput('unchanged', counts.unchanged);
  core.setOutput('pruned', counts.pruned);
  const server = env.GITHUB_SERVER_URL ?? 'https://github.com';
  const repo = env.GITHUB_REPOSITORY;
  const links = {
    commitUrl: repo && env.GITHUB_SHA ? `${server}/${repo}/commit/${env.GITHUB_SHA}` : undefined,
    runUrl: repo && env.GITHUB_RUN_ID ? `${server}/${repo}/actions/runs/${env.GITHUB_RUN_ID}` : undefined,
  };
  try {
    addDeploySummary(core.summary, report, links);
    await core.summary.write();
  } catch (error) {
    // A summary that cannot be written must not fail a deploy that succeeded.
    core.warning(`could not write the job summary: ${(error as Error).message}`);
  }
}
