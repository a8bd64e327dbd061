import type { Router } from '../http/router.js';
import { failure } from '../http/router.js';
import { v2 } from './guard.js';
import type { EngagementApiState } from './state.js';

/** Stream entry draft media (interact module): the image's bytes. */
export function fileRoutes(router: Router, state: EngagementApiState): void {
  router.get('/v2/:orgId/files/:resourceId', v2(state, 'interact', ({ params: { resourceId } }) => {
    const file = state.data.files.get(resourceId!);
    if (!file) return failure(404, `Could not find File: ${resourceId}`);
    return { status: 200, body: file.bytes, contentType: file.contentType };
  }));
}
