// The runtime modules' view of the shared Go-style errno texts (os-error.ts).
export { isNotFound, pathError } from './os-error.ts';
