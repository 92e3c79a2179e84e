import type { ProblemMessages } from './problem-messages.ts';

/** The problems in German, formal ("Sie"). */
export const deProblems: ProblemMessages = {
  problemTitleBadRequest: 'Ungültige Anfrage',
  problemTitleUnauthorized: 'Nicht angemeldet',
  problemTitleForbidden: 'Nicht erlaubt',
  problemTitleNotFound: 'Nicht gefunden',
  problemTitleMethodNotAllowed: 'Methode nicht erlaubt',
  problemTitleRequestTimeout: 'Zeitüberschreitung der Anfrage',
  problemTitleConflict: 'Konflikt',
  problemTitlePayloadTooLarge: 'Anfrage zu groß',
  problemTitleUnsupportedMediaType: 'Nicht unterstützter Medientyp',
  problemTitleTooManyRequests: 'Zu viele Anfragen',
  problemTitleHeadersTooLarge: 'Kopfzeilen der Anfrage zu groß',
  problemTitleInternalServerError: 'Interner Serverfehler',
  problemTitleBadGateway: 'Fehlerhaftes Gateway',
  problemTitleServiceUnavailable: 'Dienst nicht verfügbar',
};
