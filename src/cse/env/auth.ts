// Credentials and identities: auth, TLS bootstrapping, custom search domain, service-account image pull
// (config-contract 3.2.3, 3.2.13, 3.2.14, 3.2.19). Secrets (config-contract 5) are Secret values (D14).
import { enumNumber, type Configuration } from '../../config/types.ts';
import type { NodePaths } from '../../platform/paths.ts';
import type { MachineFacts } from '../facts.ts';
import { bool, secret, type EnvPart } from './format.ts';

const SECURE_TLS_BOOTSTRAPPING = 2;

export function authEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const auth = config.authConfig ?? {};
  return {
    TENANT_ID: auth.tenantId ?? '',
    SUBSCRIPTION_ID: auth.subscriptionId ?? '',
    SERVICE_PRINCIPAL_CLIENT_ID: auth.servicePrincipalId ?? '',
    SERVICE_PRINCIPAL_FILE_CONTENT: secret(auth.servicePrincipalSecret),
    USER_ASSIGNED_IDENTITY_ID: auth.assignedIdentityId ?? '',
    USE_MANAGED_IDENTITY_EXTENSION: bool(auth.useManagedIdentityExtension),
  };
}

export function bootstrapEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const b = config.bootstrappingConfig ?? {};
  const method = enumNumber('BootstrappingAuthMethod', b.bootstrappingAuthMethod);
  return {
    TLS_BOOTSTRAP_TOKEN: secret(b.tlsBootstrappingToken),
    ENABLE_SECURE_TLS_BOOTSTRAPPING: bool(method === SECURE_TLS_BOOTSTRAPPING),
    SECURE_TLS_BOOTSTRAPPING_AAD_RESOURCE: b.secureTlsBootstrappingAadResource ?? '',
    SECURE_TLS_BOOTSTRAPPING_USER_ASSIGNED_IDENTITY_ID: b.secureTlsBootstrappingUserAssignedIdentityId ?? '',
    SECURE_TLS_BOOTSTRAPPING_VALIDATE_KUBECONFIG_TIMEOUT: b.secureTlsBootstrappingValidateKubeconfigTimeout ?? '',
    SECURE_TLS_BOOTSTRAPPING_GET_ACCESS_TOKEN_TIMEOUT: b.secureTlsBootstrappingGetAccessTokenTimeout ?? '',
    SECURE_TLS_BOOTSTRAPPING_GET_INSTANCE_DATA_TIMEOUT: b.secureTlsBootstrappingGetInstanceDataTimeout ?? '',
    SECURE_TLS_BOOTSTRAPPING_GET_NONCE_TIMEOUT: b.secureTlsBootstrappingGetNonceTimeout ?? '',
    SECURE_TLS_BOOTSTRAPPING_GET_ATTESTED_DATA_TIMEOUT: b.secureTlsBootstrappingGetAttestedDataTimeout ?? '',
    SECURE_TLS_BOOTSTRAPPING_GET_CREDENTIAL_TIMEOUT: b.secureTlsBootstrappingGetCredentialTimeout ?? '',
    CUSTOM_SECURE_TLS_BOOTSTRAPPING_CLIENT_DOWNLOAD_URL: b.secureTlsBootstrappingCustomClientDownloadUrl ?? '',
  };
}

export function searchDomainEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const s = config.customSearchDomainConfig ?? {};
  return {
    HAS_CUSTOM_SEARCH_DOMAIN: bool(!!s.domainName && !!s.realmUser && !!s.realmPassword),
    CUSTOM_SEARCH_DOMAIN_NAME: s.domainName ?? '',
    CUSTOM_SEARCH_REALM_USER: s.realmUser ?? '',
    CUSTOM_SEARCH_REALM_PASSWORD: secret(s.realmPassword),
  };
}

export function imagePullEnv(config: Configuration, _facts: MachineFacts, _paths: NodePaths): EnvPart {
  const p = config.serviceAccountImagePullProfile ?? {};
  return {
    SERVICE_ACCOUNT_IMAGE_PULL_ENABLED: bool(p.enabled),
    SERVICE_ACCOUNT_IMAGE_PULL_DEFAULT_CLIENT_ID: p.defaultClientId ?? '',
    SERVICE_ACCOUNT_IMAGE_PULL_DEFAULT_TENANT_ID: p.defaultTenantId ?? '',
    IDENTITY_BINDINGS_LOCAL_AUTHORITY_SNI: p.localAuthoritySni ?? '',
  };
}
