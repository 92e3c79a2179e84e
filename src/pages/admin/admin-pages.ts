/**
 * The admin console's pages by name, for the page registry (rendering.ts): an application
 * replaces any of them as it replaces the account pages (`pages.renderers`).
 */
import type { AccountPaths } from '../paths.ts';
import { adminApiKeysPage, type AdminApiKeysPageData, type AdminApiKeysPageModel } from './api-keys.ts';
import { adminAuditPage, type AdminAuditPageData, type AdminAuditPageModel } from './audit.ts';
import { type AdminLinks, adminLinks } from './console.ts';
import { adminHomePage, type AdminHomePageData, type AdminHomePageModel } from './home.ts';
import { adminOrganizationPage, type AdminOrganizationPageData, type AdminOrganizationPageModel } from './organizations.ts';
import { adminOrganizationsPage, type AdminOrganizationsPageData, type AdminOrganizationsPageModel } from './organizations.ts';
import { adminSigningKeysPage, type AdminSigningKeysPageData, type AdminSigningKeysPageModel } from './signing-keys.ts';
import { adminUserDeletePage, type AdminUserDeletePageData, type AdminUserDeletePageModel, adminUserPage, type AdminUserPageData, type AdminUserPageModel } from './user.ts';
import { adminUsersPage, type AdminUsersPageData, type AdminUsersPageModel } from './users.ts';

export interface AdminPageModels {
  readonly adminHome: AdminHomePageModel;
  readonly adminUsers: AdminUsersPageModel;
  readonly adminUser: AdminUserPageModel;
  readonly adminUserDelete: AdminUserDeletePageModel;
  readonly adminAudit: AdminAuditPageModel;
  readonly adminApiKeys: AdminApiKeysPageModel;
  readonly adminSigningKeys: AdminSigningKeysPageModel;
  readonly adminOrganizations: AdminOrganizationsPageModel;
  readonly adminOrganization: AdminOrganizationPageModel;
}

export interface AdminPageData {
  readonly adminHome: AdminHomePageData;
  readonly adminUsers: AdminUsersPageData;
  readonly adminUser: AdminUserPageData;
  readonly adminUserDelete: AdminUserDeletePageData;
  readonly adminAudit: AdminAuditPageData;
  readonly adminApiKeys: AdminApiKeysPageData;
  readonly adminSigningKeys: AdminSigningKeysPageData;
  readonly adminOrganizations: AdminOrganizationsPageData;
  readonly adminOrganization: AdminOrganizationPageData;
}

type AdminPageName = keyof AdminPageModels;

/** Every console page has the same links: the console's paths. */
export const ADMIN_LINKS: { readonly [Name in AdminPageName]: (data: AdminPageData[Name], paths: AccountPaths) => AdminLinks } = {
  adminHome: adminLinks,
  adminUsers: adminLinks,
  adminUser: adminLinks,
  adminUserDelete: adminLinks,
  adminAudit: adminLinks,
  adminApiKeys: adminLinks,
  adminSigningKeys: adminLinks,
  adminOrganizations: adminLinks,
  adminOrganization: adminLinks,
};

export const ADMIN_RENDERERS = {
  adminHome: adminHomePage,
  adminUsers: adminUsersPage,
  adminUser: adminUserPage,
  adminUserDelete: adminUserDeletePage,
  adminAudit: adminAuditPage,
  adminApiKeys: adminApiKeysPage,
  adminSigningKeys: adminSigningKeysPage,
  adminOrganizations: adminOrganizationsPage,
  adminOrganization: adminOrganizationPage,
} as const;
