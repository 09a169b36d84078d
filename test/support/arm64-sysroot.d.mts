export declare const SYSROOT: string;
export declare function ensureArm64Sysroot(): string;
