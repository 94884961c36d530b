/**
 * Kept so `node packages/http/src/main.ts` (deployments, the bench, the `npm start` script the
 * bench reads its Node flags from) still starts the service: it runs the composition root's
 * all-in-one entry, `app/main.ts`. Nothing else in this package imports outside it.
 */
import "../../../app/main.ts"
